package controller_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// A controller of Foos that owns Bars: Foo and Bar are Kubernetes-like
// types (any type with GetNamespace, GetName and GetResourceVersion;
// *corev1.Pod works the same way), and each Bar names its owner.
func Example_controller() {
	foos := memsource.New(memsource.Options[*Foo]{})
	bars := memsource.New(memsource.Options[*Bar]{})
	_, _ = foos.Create(&Foo{Namespace: "default", Name: "web", Generation: 1})
	_, _ = bars.Create(&Bar{Namespace: "default", Name: "web-0", Owner: "web"})

	factory := informer.NewFactory(informer.FactoryOptions{})
	fooInf := informer.For(factory, foos)
	barInf := informer.For(factory, bars)

	// The reconcile function reads the caches and makes the world match
	// the Foo; here it reports what it sees.
	reconciled := make(chan string, 10)
	c := controller.New("foo", func(ctx context.Context, key string) (queue.Result, error) {
		foo, exists := fooInf.Cache().GetByKey(key)
		if !exists {
			fmt.Println("reconcile", key, "deleted")
		} else {
			owned := 0
			for _, b := range barInf.Cache().List() {
				if keys.Join(b.Namespace, b.Owner) == key {
					owned++
				}
			}
			fmt.Println("reconcile", key, "generation", foo.Generation, "bars", owned)
		}
		reconciled <- key
		return queue.Result{}, nil
	}, controller.Options[string]{})

	// The primary: a Foo's key is its namespace/name; updates that leave
	// the generation as it was (status changes) are dropped.
	if err := controller.For(c, fooInf, controller.GenerationChanged[*Foo]()); err != nil {
		fmt.Println(err)
	}
	// A secondary: a change of a Bar reconciles its owner.
	err := controller.Watches(c, barInf, func(b *Bar) []string {
		return []string{keys.Join(b.Namespace, b.Owner)}
	})
	if err != nil {
		fmt.Println(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	// The initial lists are reconciled once every cache has synced.
	_ = c.WaitIdle(ctx)
	<-reconciled

	// A status change is filtered out; a new Bar reconciles its owner.
	foo, _ := foos.Get("default/web")
	foo.Spec = "status only"
	_, _ = foos.Update(foo)
	_, _ = bars.Create(&Bar{Namespace: "default", Name: "web-1", Owner: "web"})
	<-reconciled

	// A deletion is reconciled too.
	_, _ = foos.Delete("default/web")
	<-reconciled

	cancel()
	fmt.Println("Run:", <-done)
	fmt.Println("succeeded:", c.Stats().Succeeded)
	_ = factory.Shutdown()
	// Output:
	// reconcile default/web generation 1 bars 1
	// reconcile default/web generation 1 bars 2
	// reconcile default/web deleted
	// Run: <nil>
	// succeeded: 3
}

// FooKey is a controller key of its own type: ForKey makes it from the
// cache key, which a deletion always carries.
type FooKey struct{ Namespace, Name string }

func ExampleForKey() {
	foos := memsource.New(memsource.Options[*Foo]{})
	_, _ = foos.Create(&Foo{Namespace: "default", Name: "web"})
	factory := informer.NewFactory(informer.FactoryOptions{})
	fooInf := informer.For(factory, foos)

	c := controller.New("foo", func(ctx context.Context, key FooKey) (queue.Result, error) {
		fmt.Printf("reconcile %+v\n", key)
		return queue.Result{}, nil
	}, controller.Options[FooKey]{})
	err := controller.ForKey(c, fooInf, func(key string) (FooKey, error) {
		ns, name, err := keys.Split(key)
		return FooKey{ns, name}, err
	})
	if err != nil {
		fmt.Println(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	_ = c.WaitIdle(ctx)
	cancel()
	<-done
	_ = factory.Shutdown()
	// Output:
	// reconcile {Namespace:default Name:web}
}
