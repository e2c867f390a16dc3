package controller_test

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// Foo is the primary type of the tests: Kubernetes-like, with the
// metadata the change predicates read.
type Foo struct {
	Namespace, Name, RV string
	Generation          int64
	Labels, Annotations map[string]string
	Spec                string
}

func (f *Foo) GetNamespace() string              { return f.Namespace }
func (f *Foo) GetName() string                   { return f.Name }
func (f *Foo) GetResourceVersion() string        { return f.RV }
func (f *Foo) SetResourceVersion(rv string)      { f.RV = rv }
func (f *Foo) GetGeneration() int64              { return f.Generation }
func (f *Foo) GetLabels() map[string]string      { return f.Labels }
func (f *Foo) GetAnnotations() map[string]string { return f.Annotations }

func (f *Foo) DeepCopy() *Foo {
	c := *f
	c.Labels, c.Annotations = maps.Clone(f.Labels), maps.Clone(f.Annotations)
	return &c
}

// Bar is the secondary type: each Bar names the Foo that owns it.
type Bar struct {
	Namespace, Name, RV, Owner string
	Value                      int
}

func (b *Bar) GetNamespace() string         { return b.Namespace }
func (b *Bar) GetName() string              { return b.Name }
func (b *Bar) GetResourceVersion() string   { return b.RV }
func (b *Bar) SetResourceVersion(rv string) { b.RV = rv }
func (b *Bar) DeepCopy() *Bar               { c := *b; return &c }

// ownerOf maps a Bar to the key of its owner.
func ownerOf(b *Bar) []string {
	if b.Owner == "" {
		return nil
	}
	return []string{keys.Join(b.Namespace, b.Owner)}
}

// discard is the logger of the tests' controllers: the errors they log
// are expected.
var discard = slog.New(slog.DiscardHandler)

// env is a controller's world: two sources and a factory's informers
// over them.
type env struct {
	t       *testing.T
	foos    *memsource.Source[*Foo]
	bars    *memsource.Source[*Bar]
	factory *informer.Factory
	fooInf  *informer.Informer[*Foo]
	barInf  *informer.Informer[*Bar]
}

func newEnv(t *testing.T, bars memsource.Options[*Bar]) *env {
	e := &env{
		t:       t,
		foos:    memsource.New(memsource.Options[*Foo]{}),
		bars:    memsource.New(bars),
		factory: informer.NewFactory(informer.FactoryOptions{Logger: discard}),
	}
	e.fooInf = informer.For(e.factory, e.foos)
	e.barInf = informer.For(e.factory, e.bars)
	return e
}

func (e *env) createFoo(name string) *Foo {
	e.t.Helper()
	f, err := e.foos.Create(&Foo{Namespace: "ns", Name: name, Generation: 1})
	if err != nil {
		e.t.Fatalf("Create(%s): %v", name, err)
	}
	return f
}

func (e *env) updateFoo(f *Foo) *Foo {
	e.t.Helper()
	f, err := e.foos.Update(f)
	if err != nil {
		e.t.Fatalf("Update(%s): %v", f.Name, err)
	}
	return f
}

func (e *env) createBar(name, owner string) *Bar {
	e.t.Helper()
	b, err := e.bars.Create(&Bar{Namespace: "ns", Name: name, Owner: owner})
	if err != nil {
		e.t.Fatalf("Create(%s): %v", name, err)
	}
	return b
}

func (e *env) updateBar(b *Bar) *Bar {
	e.t.Helper()
	b, err := e.bars.Update(b)
	if err != nil {
		e.t.Fatalf("Update(%s): %v", b.Name, err)
	}
	return b
}

// run starts the factory and c, and stops both when the test ends,
// checking that Run returned nil. The returned function stops them
// earlier; it returns once Run has returned.
func (e *env) run(c *controller.Controller[string]) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	e.factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				e.t.Errorf("Run() = %v, want nil", err)
			}
			if err := e.factory.Shutdown(); err != nil {
				e.t.Errorf("Shutdown() = %v", err)
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// settle waits until every change made has reached c and c is idle.
// It must be called inside a synctest bubble.
func settle[K comparable](t *testing.T, c *controller.Controller[K]) {
	t.Helper()
	synctest.Wait()
	if err := c.WaitIdle(t.Context()); err != nil {
		t.Fatalf("WaitIdle() = %v", err)
	}
}

// recorder is a reconcile function that records its calls and returns
// what result returns for them.
type recorder struct {
	mu    sync.Mutex
	calls []string
	count map[string]int
	// result, if set, decides the outcome of the n-th call (from 1) for
	// key.
	result func(ctx context.Context, key string, n int) (queue.Result, error)
}

func (r *recorder) reconcile(ctx context.Context, key string) (queue.Result, error) {
	r.mu.Lock()
	if r.count == nil {
		r.count = make(map[string]int)
	}
	r.count[key]++
	n := r.count[key]
	r.calls = append(r.calls, key)
	result := r.result
	r.mu.Unlock()
	if result == nil {
		return queue.Result{}, nil
	}
	return result(ctx, key, n)
}

// take returns the keys reconciled since the last take, in order.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

// sorted returns the keys reconciled since the last take, sorted.
func (r *recorder) sorted() []string {
	calls := r.take()
	slices.Sort(calls)
	return calls
}
