package informer_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// Pod is a minimal Kubernetes-like object; *corev1.Pod works the same way.
type Pod struct {
	Namespace, Name, ResourceVersion string
	Image                            string
}

func (p *Pod) GetNamespace() string         { return p.Namespace }
func (p *Pod) GetName() string              { return p.Name }
func (p *Pod) GetResourceVersion() string   { return p.ResourceVersion }
func (p *Pod) SetResourceVersion(rv string) { p.ResourceVersion = rv }

// DeepCopy returns a copy of p, as every Kubernetes type's does.
func (p *Pod) DeepCopy() *Pod { c := *p; return &c }

func ExampleNew() {
	src := memsource.New(memsource.Options[*Pod]{})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.27"})

	inf := informer.New(src, informer.Options[*Pod]{})
	events := make(chan string, 10)
	reg, _ := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(p *Pod, inInitialList bool) {
			events <- fmt.Sprintf("add %s (initial list: %t)", p.Name, inInitialList)
		},
		UpdateFunc: func(old, new *Pod) {
			events <- fmt.Sprintf("update %s: %s -> %s", new.Name, old.Image, new.Image)
		},
		DeleteFunc: func(d informer.Deleted[*Pod]) {
			events <- fmt.Sprintf("delete %s (last image %s)", d.Key, d.Object.Image)
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		fmt.Println(err)
	}
	fmt.Println(<-events)

	_, _ = src.Update(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.28"})
	fmt.Println(<-events)
	// The cache is updated before handlers are told.
	pod, _ := inf.Lister().Get("default", "web")
	fmt.Println("cached image:", pod.Image)

	_, _ = src.Delete("default/web")
	fmt.Println(<-events)

	cancel()
	fmt.Println("Run:", <-done)
	// Output:
	// add web (initial list: true)
	// update web: nginx:1.27 -> nginx:1.28
	// cached image: nginx:1.28
	// delete default/web (last image nginx:1.28)
	// Run: <nil>
}

// Two controllers of one program share the factory's informer for a type:
// one cache, one watch, one handler buffer each.
func ExampleFactory() {
	src := memsource.New(memsource.Options[*Pod]{})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.27"})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "db", Image: "postgres:17"})

	f := informer.NewFactory(informer.FactoryOptions{})
	defer f.Shutdown()

	// Controller one counts pods.
	pods := informer.For(f, src)
	counted := make(chan struct{}, 10)
	count, _ := pods.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(*Pod, bool) { counted <- struct{}{} },
	})
	// Controller two asks for the same source and gets the same informer.
	same := informer.For(f, src)
	fmt.Println("shared:", same == pods)

	ctx := context.Background()
	f.Start(ctx)
	if err := informer.WaitForCacheSync(ctx, f, count); err != nil {
		fmt.Println(err)
	}
	fmt.Println("pods counted:", len(counted))
	for _, name := range []string{"db", "web"} {
		p, _ := same.Lister().Get("default", name)
		fmt.Println(p.Name, p.Image)
	}
	// Output:
	// shared: true
	// pods counted: 2
	// db postgres:17
	// web nginx:1.27
}

// slimPod is what a program that only needs images keeps of a Pod.
type slimPod struct {
	Namespace, Name, ResourceVersion string
	Image                            string
}

func (p *slimPod) GetNamespace() string       { return p.Namespace }
func (p *slimPod) GetName() string            { return p.Name }
func (p *slimPod) GetResourceVersion() string { return p.ResourceVersion }
func (p *slimPod) DeepCopy() *slimPod         { c := *p; return &c }

// NewProjected caches a slim projection of a large type: the cache,
// listers and handlers only ever see the projection.
func ExampleNewProjected() {
	src := memsource.New(memsource.Options[*Pod]{})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.27"})

	project := func(p *Pod) (*slimPod, error) {
		return &slimPod{Namespace: p.Namespace, Name: p.Name, ResourceVersion: p.ResourceVersion, Image: p.Image}, nil
	}
	inf := informer.NewProjected(src, project, informer.Options[*slimPod]{})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		fmt.Println(err)
	}
	p, _ := inf.Lister().Get("default", "web")
	fmt.Printf("%T %s\n", p, p.Image)
	cancel()
	<-done
	// Output:
	// *informer_test.slimPod nginx:1.27
}
