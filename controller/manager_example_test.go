package controller_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// A program creates its informers through a factory (controllers do so
// in their constructors), adds its controllers to a manager, and runs it
// until a signal. The runnables start once the caches are full. Here the
// runnable stops the program at once, so that the example ends.
func ExampleManager() {
	src := memsource.New(memsource.Options[*Pod]{}) // a kube.Source in a cluster
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web"})
	factory := informer.NewFactory(informer.FactoryOptions{})
	pods := informer.For(factory, src)

	m := controller.NewManager(factory, controller.ManagerOptions{
		// Addr: ":8081" serves /healthz, /readyz and /metrics.
		// Elector: a *leader.Elector runs the controllers on one replica.
	})
	ctx, shutdown := context.WithCancel(context.Background()) // signal.NotifyContext in a program
	err := m.Add(controller.RunnableFunc(func(ctx context.Context) error {
		fmt.Println("cached at start:", pods.Cache().ListKeys())
		shutdown() // a controller runs until ctx ends
		<-ctx.Done()
		return nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Run returned", m.Run(ctx))
	// Output:
	// cached at start: [default/web]
	// Run returned <nil>
}
