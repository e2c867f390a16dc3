package integrationtest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// This file holds the README's quick start, verbatim (TestReadmeQuickStart
// checks that), and runs it: Example_readmeQuickStart checks what it does,
// and goleak that it leaves no goroutine behind once it returns. It is a
// package of its own, so that the README's names are free: the package's
// tests have a type called controller.

// Pod is the README's object type.
type Pod struct {
	Namespace, Name, ResourceVersion string
	Image                            string
}

func (p *Pod) GetNamespace() string         { return p.Namespace }
func (p *Pod) GetName() string              { return p.Name }
func (p *Pod) GetResourceVersion() string   { return p.ResourceVersion }
func (p *Pod) SetResourceVersion(rv string) { p.ResourceVersion = rv }
func (p *Pod) DeepCopy() *Pod               { c := *p; return &c }

// reconciled receives the pods reconcile is called with.
var reconciled = make(chan string, 100)

// reconcile stands for the user's logic in the README.
func reconcile(_ context.Context, pod *Pod) (queue.Result, error) {
	reconciled <- pod.Namespace + "/" + pod.Name + " " + pod.Image
	return queue.Result{}, nil
}

// runController reconciles the pods of src until ctx ends, then stops
// everything it started before it returns.
func runController(ctx context.Context, src *memsource.Source[*Pod]) error { // or a Kubernetes source: see "Use with Kubernetes"
	factory := informer.NewFactory(informer.FactoryOptions{})
	pods := informer.For(factory, src)
	c := controller.New("pods", func(ctx context.Context, key string) (queue.Result, error) {
		pod, ok := pods.Cache().GetByKey(key) // *Pod, no assertion
		if !ok {
			return queue.Result{}, nil // deleted since it was queued
		}
		return reconcile(ctx, pod) // your logic: an error is retried with backoff
	}, controller.Options[string]{MaxConcurrentReconciles: 2})
	if err := controller.For(c, pods); err != nil { // queues the key of every pod that changes
		return err
	}
	m := controller.NewManager(factory, controller.ManagerOptions{})
	if err := m.Add(c); err != nil {
		return err
	}
	// Run starts the informers, runs c once they have synced, and stops
	// both when ctx ends.
	return m.Run(ctx)
}

func Example_readmeQuickStart() {
	src := memsource.New(memsource.Options[*Pod]{})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.27"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- runController(ctx, src) }()
	fmt.Println(<-reconciled)
	_, _ = src.Update(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.28"})
	fmt.Println(<-reconciled)
	cancel()
	fmt.Println("runController:", <-done)
	// Output:
	// default/web nginx:1.27
	// default/web nginx:1.28
	// runController: <nil>
}

// The README's quick start is the code above, and every run of it leaves
// no goroutine behind when it returns.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "## Quick start\n\n```go\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed {
		t.Fatal("README.md has no Go block under \"## Quick start\"")
	}
	self, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(self), "\n"+block+"\n") {
		t.Errorf("README.md's quick start differs from runController in readme_test.go:\n%s", block)
	}

	for i := range 20 {
		src := memsource.New(memsource.Options[*Pod]{})
		_, _ = src.Create(&Pod{Namespace: "default", Name: fmt.Sprint("web-", i)})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- runController(ctx, src) }()
		<-reconciled
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run %d: runController() = %v, want nil", i, err)
		}
		goleak.VerifyNone(t)
	}
}
