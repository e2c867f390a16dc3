package integrationtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// thing is the object of these tests; Owner feeds a secondary index.
type thing struct {
	Namespace, Name, ResourceVersion string
	Owner                            string
	Value                            int
}

func (o *thing) GetNamespace() string         { return o.Namespace }
func (o *thing) GetName() string              { return o.Name }
func (o *thing) GetResourceVersion() string   { return o.ResourceVersion }
func (o *thing) SetResourceVersion(rv string) { o.ResourceVersion = rv }

// DeepCopy returns a copy of o, for the cache mutation detector.
func (o *thing) DeepCopy() *thing {
	c := *o
	return &c
}

// faultsExpected is the ErrorHandler of informers under injected faults:
// it ignores the errors the faults cause, but fails the test on a
// modified cached object, which no fault explains.
func faultsExpected(t testing.TB) func(context.Context, error) {
	return func(_ context.Context, err error) {
		if _, ok := errors.AsType[*informer.CacheMutationError](err); ok {
			t.Error(err)
		}
	}
}

const ownerIndex = "owner"

func ownerOf(o *thing) ([]string, error) { return []string{o.Owner}, nil }

// versions returns key -> resource version of objs.
func versions(objs []*thing) map[string]string {
	m := make(map[string]string, len(objs))
	for _, o := range objs {
		m[keys.Join(o.Namespace, o.Name)] = o.ResourceVersion
	}
	return m
}

// sourceVersions returns key -> resource version of everything src holds.
func sourceVersions(t *testing.T, src *memsource.Source[*thing]) map[string]string {
	t.Helper()
	res, err := src.List(context.Background(), reflector.ListOptions{})
	if err != nil {
		t.Fatalf("List() of the source: %v", err)
	}
	return versions(res.Items)
}

// checkingSource wraps a memsource.Source and fails the test when the
// reflector asks for a version the source has not reached, counting the
// calls that start a sync (a list's first page, a streaming watch).
type checkingSource struct {
	*memsource.Source[*thing]
	t *testing.T

	lists, continues, streams, watches atomic.Int64
}

// tooNew reports whether rv names a version newer than the source's. The
// source's version is read after the call: it only grows, so a version
// newer than that was newer at the call too.
func (c *checkingSource) tooNew(rv string) bool {
	if rv == "" || rv == "0" {
		return false
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		c.t.Errorf("reflector asked for the unparsable version %q", rv)
		return false
	}
	cur, _ := strconv.ParseUint(c.Source.ResourceVersion(), 10, 64)
	return n > cur
}

func (c *checkingSource) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[*thing], error) {
	if opts.Continue != "" {
		c.continues.Add(1)
	} else {
		c.lists.Add(1)
	}
	res, err := c.Source.List(ctx, opts)
	if opts.Continue == "" && c.tooNew(opts.ResourceVersion) {
		c.t.Errorf("List(ResourceVersion %q) asks for a version newer than the source's %s", opts.ResourceVersion, c.Source.ResourceVersion())
	}
	return res, err
}

func (c *checkingSource) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*thing], error) {
	if opts.SendInitialEvents {
		c.streams.Add(1)
	} else {
		c.watches.Add(1)
	}
	w, err := c.Source.Watch(ctx, opts)
	if c.tooNew(opts.ResourceVersion) {
		c.t.Errorf("Watch(ResourceVersion %q) asks for a version newer than the source's %s", opts.ResourceVersion, c.Source.ResourceVersion())
	}
	return w, err
}

// syncs returns the number of calls that started a sync.
func (c *checkingSource) syncs() int64 { return c.lists.Load() + c.streams.Load() }

// view is a handler that replays its notifications into its own map of
// key -> resource version, failing the test on any notification that does
// not fit what it was told before: an add of a known key, an update or
// deletion of an unknown one, an update whose old state is not the one it
// knows, a version going backwards.
type view struct {
	t    *testing.T
	name string

	mu      sync.Mutex
	objs    map[string]string
	adds    int
	updates int
	deletes int
	// onEvent, if set, runs after each notification, outside mu.
	onEvent func(o *thing)
}

func newView(t *testing.T, name string) *view {
	return &view{t: t, name: name, objs: map[string]string{}}
}

func key(o *thing) string { return keys.Join(o.Namespace, o.Name) }

func rvLess(a, b string) bool {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	return x < y
}

func (v *view) OnAdd(o *thing, _ bool) {
	v.mu.Lock()
	k := key(o)
	if rv, ok := v.objs[k]; ok {
		v.t.Errorf("%s: OnAdd(%s@%s) of a key it holds at %s", v.name, k, o.ResourceVersion, rv)
	}
	v.objs[k] = o.ResourceVersion
	v.adds++
	v.mu.Unlock()
	v.after(o)
}

func (v *view) OnUpdate(old, o *thing) {
	v.mu.Lock()
	k := key(o)
	rv, ok := v.objs[k]
	switch {
	case !ok:
		v.t.Errorf("%s: OnUpdate(%s@%s -> %s) of a key it does not hold", v.name, k, old.ResourceVersion, o.ResourceVersion)
	case rv != old.ResourceVersion:
		v.t.Errorf("%s: OnUpdate(%s@%s -> %s), but it holds %s", v.name, k, old.ResourceVersion, o.ResourceVersion, rv)
	case rvLess(o.ResourceVersion, old.ResourceVersion):
		v.t.Errorf("%s: OnUpdate(%s@%s -> %s) goes back in time", v.name, k, old.ResourceVersion, o.ResourceVersion)
	}
	v.objs[k] = o.ResourceVersion
	v.updates++
	v.mu.Unlock()
	v.after(o)
}

func (v *view) OnDelete(d informer.Deleted[*thing]) {
	v.mu.Lock()
	if _, ok := v.objs[d.Key]; !ok {
		v.t.Errorf("%s: OnDelete(%s, inferred %v) of a key it does not hold", v.name, d.Key, d.Inferred)
	}
	delete(v.objs, d.Key)
	v.deletes++
	v.mu.Unlock()
	if d.Object != nil {
		v.after(d.Object)
	}
}

func (v *view) after(o *thing) {
	if v.onEvent != nil {
		v.onEvent(o)
	}
}

func (v *view) snapshot() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.objs)
}

// checkIndex compares the owner index of cache with a scan of it.
func checkIndex(t *testing.T, cache informer.Cache[*thing]) {
	t.Helper()
	byOwner := map[string][]string{}
	for k, o := range cache.All() {
		byOwner[o.Owner] = append(byOwner[o.Owner], k)
	}
	values, err := cache.ListIndexFuncValues(ownerIndex)
	if err != nil {
		t.Fatalf("ListIndexFuncValues(%q): %v", ownerIndex, err)
	}
	for _, owner := range values {
		if _, ok := byOwner[owner]; !ok {
			byOwner[owner] = nil
		}
	}
	for owner, want := range byOwner {
		got, err := cache.IndexKeys(ownerIndex, owner)
		if err != nil {
			t.Fatalf("IndexKeys(%q, %q): %v", ownerIndex, owner, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("IndexKeys(%q, %q) mismatch with a scan of the cache (-want +got):\n%s", ownerIndex, owner, diff)
		}
	}
}

func describe(format string, args ...any) string { return fmt.Sprintf(format, args...) }
