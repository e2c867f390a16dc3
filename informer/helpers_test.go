package informer_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// obj is the object type of the tests: a pointer type, like Kubernetes
// objects, that memsource can stamp versions on.
type obj struct {
	Namespace, Name, RV string
	Value               int
}

func (o *obj) GetNamespace() string         { return o.Namespace }
func (o *obj) GetName() string              { return o.Name }
func (o *obj) GetResourceVersion() string   { return o.RV }
func (o *obj) SetResourceVersion(rv string) { o.RV = rv }
func (o *obj) DeepCopy() *obj               { c := *o; return &c }

// newObj returns an object in namespace "ns".
func newObj(name string, value int) *obj {
	return &obj{Namespace: "ns", Name: name, Value: value}
}

// numbered returns n objects named prefix0000, prefix0001, ..., each
// valued its number.
func numbered(prefix string, n int) []*obj {
	objs := make([]*obj, n)
	for i := range objs {
		objs[i] = newObj(fmt.Sprintf("%s%04d", prefix, i), i)
	}
	return objs
}

// newSource returns an in-memory source holding objs.
func newSource(t testing.TB, opts memsource.Options[*obj], objs ...*obj) *memsource.Source[*obj] {
	t.Helper()
	src := memsource.New(opts)
	for _, o := range objs {
		if _, err := src.Create(o); err != nil {
			t.Fatalf("Create(%s): %v", o.Name, err)
		}
	}
	return src
}

// start runs inf until the test ends, and returns a function that stops
// it and waits for Run to return. Run's error is checked.
func start[T keys.Object](t testing.TB, inf *informer.Informer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run() = %v, want nil", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// recorder is a Handler that records what it is told, as strings, and the
// view of the cache its notifications imply.
type recorder struct {
	mu     sync.Mutex
	events []string
	view   map[string]*obj
	// problems lists notifications inconsistent with the view: an add of
	// a key it has, an update or deletion of a key it lacks.
	problems []string
}

func newRecorder() *recorder { return &recorder{view: map[string]*obj{}} }

func key(o *obj) string { return keys.Join(o.Namespace, o.Name) }

func (r *recorder) OnAdd(o *obj, initial bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(o)
	if _, ok := r.view[k]; ok {
		r.problems = append(r.problems, "add of present "+k)
	}
	r.view[k] = o
	r.events = append(r.events, fmt.Sprintf("add %s v%d initial=%t", k, o.Value, initial))
}

func (r *recorder) OnUpdate(old, new *obj) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(new)
	if _, ok := r.view[k]; !ok {
		r.problems = append(r.problems, "update of absent "+k)
	}
	r.view[k] = new
	r.events = append(r.events, fmt.Sprintf("update %s v%d->v%d", k, old.Value, new.Value))
}

func (r *recorder) OnDelete(d informer.Deleted[*obj]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.view[d.Key]; !ok {
		r.problems = append(r.problems, "delete of absent "+d.Key)
	}
	delete(r.view, d.Key)
	s := fmt.Sprintf("delete %s", d.Key)
	if d.Object != nil {
		s += fmt.Sprintf(" v%d", d.Object.Value)
	}
	if d.Inferred {
		s += " inferred"
	}
	r.events = append(r.events, s)
}

// take returns the events recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events = nil
	return ev
}

// values returns the recorder's view as key -> value.
func (r *recorder) values() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return valuesOf(maps.Values(r.view))
}

// valuesOf maps the keys of objs to their values.
func valuesOf(objs func(func(*obj) bool)) map[string]int {
	m := map[string]int{}
	for o := range objs {
		m[key(o)] = o.Value
	}
	return m
}

// sorted returns a sorted copy of ss, for order-insensitive comparisons.
func sorted(ss []string) []string {
	ss = slices.Clone(ss)
	slices.Sort(ss)
	return ss
}

// join formats events one per line, for failure messages.
func join(ss []string) string { return strings.Join(ss, "\n") }

// outage simulates a watch outage during which during changes the source,
// long enough for the source to forget the changes: the informer must
// relist to catch up, as after a long disconnection from an API server.
// It returns once the informer has settled after the relist. It must run
// in a synctest bubble.
func outage(src *memsource.Source[*obj], during func()) {
	src.SetFaults(memsource.Faults{WatchDelay: time.Hour})
	src.CloseWatches()
	synctest.Wait()
	during()
	src.Compact()
	src.SetFaults(memsource.Faults{})
	time.Sleep(2 * time.Hour)
	synctest.Wait()
}

// gate is a Handler that passes notifications to next, but first waits,
// for objects block selects, until the gate is opened.
type gate struct {
	next  informer.Handler[*obj]
	block func(*obj) bool
	open  chan struct{}
	once  sync.Once
}

func newGate(next informer.Handler[*obj], block func(*obj) bool) *gate {
	return &gate{next: next, block: block, open: make(chan struct{})}
}

// Open lets every waiting and future notification through.
func (g *gate) Open() { g.once.Do(func() { close(g.open) }) }

func (g *gate) wait(o *obj) {
	if o != nil && g.block(o) {
		<-g.open
	}
}

func (g *gate) OnAdd(o *obj, initial bool) { g.wait(o); g.next.OnAdd(o, initial) }
func (g *gate) OnUpdate(old, new *obj)     { g.wait(new); g.next.OnUpdate(old, new) }
func (g *gate) OnDelete(d informer.Deleted[*obj]) {
	g.wait(d.Object)
	g.next.OnDelete(d)
}

// always blocks every notification.
func always(*obj) bool { return true }

// update writes a new value of the object named name.
func update(t testing.TB, src *memsource.Source[*obj], name string, value int) {
	t.Helper()
	cur, ok := src.Get("ns/" + name)
	if !ok {
		t.Fatalf("update(%s): not in the source", name)
	}
	next := *cur
	next.Value = value
	if _, err := src.Update(&next); err != nil {
		t.Fatalf("update(%s): %v", name, err)
	}
}

// create adds an object named name.
func create(t testing.TB, src *memsource.Source[*obj], name string, value int) {
	t.Helper()
	if _, err := src.Create(newObj(name, value)); err != nil {
		t.Fatalf("create(%s): %v", name, err)
	}
}

// remove deletes the object named name.
func remove(t testing.TB, src *memsource.Source[*obj], name string) {
	t.Helper()
	if _, err := src.Delete("ns/" + name); err != nil {
		t.Fatalf("remove(%s): %v", name, err)
	}
}

// mustAdd registers h with opts, failing the test on error.
func mustAdd(t testing.TB, inf *informer.Informer[*obj], h informer.Handler[*obj], opts informer.HandlerOptions) *informer.Registration[*obj] {
	t.Helper()
	reg, err := inf.AddEventHandlerWithOptions(h, opts)
	if err != nil {
		t.Fatalf("AddEventHandlerWithOptions() = %v", err)
	}
	return reg
}

// quiet returns informer options that send errors to the test log
// instead of slog.Default.
func quiet(t testing.TB) informer.Options[*obj] {
	return informer.Options[*obj]{ErrorHandler: func(_ context.Context, err error) { t.Log(err) }}
}

// reflectorListAll lists everything, unpaginated.
var reflectorListAll = reflector.ListOptions{}

// holdAt returns a "value" index that holds the first indexing of the
// object named name until gate is closed: the goroutine applying it
// (the reflector's for a list it applies itself, else the processing
// goroutine) waits there. Objects are indexed one at a time.
func holdAt(name string) (indexers indexer.Indexers[*obj], gate chan struct{}) {
	gate = make(chan struct{})
	held := false
	return indexer.Indexers[*obj]{"value": func(o *obj) ([]string, error) {
		if !held && o.Name == name {
			held = true
			<-gate
		}
		return []string{fmt.Sprint(o.Value)}, nil
	}}, gate
}
