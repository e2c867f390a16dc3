package controller_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// fakeSharder is a Sharder whose decisions the test sets: a key is
// started if owned and not blocked, parked if owned and blocked, dropped
// otherwise; the first start of a key in fence is fenced at once.
type fakeSharder struct {
	mu      sync.Mutex
	keys    controller.ShardKeys
	owned   map[string]bool
	blocked map[string]bool
	fence   map[string]bool
	parked  map[string]bool
	// running counts the works started and not ended.
	running int
}

func newFakeSharder(owned ...string) *fakeSharder {
	s := &fakeSharder{owned: map[string]bool{}, blocked: map[string]bool{}, fence: map[string]bool{}, parked: map[string]bool{}}
	for _, k := range owned {
		s.owned[k] = true
	}
	return s
}

// Run leads at once until ctx ends, as a Shard does on every replica.
func (s *fakeSharder) Run(ctx context.Context, lead func(context.Context) error) error {
	err := lead(ctx)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (s *fakeSharder) Gate(name string, keys controller.ShardKeys) (controller.ShardGate, error) {
	if name == "refused" {
		return nil, errors.New("no gate for you")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = keys
	return s, nil
}

func (s *fakeSharder) Start(ctx context.Context, name string) (context.Context, func() bool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.owned[name]:
		return nil, nil, false
	case s.blocked[name]:
		s.parked[name] = true
		return nil, nil, false
	}
	s.running++
	wctx, cancel := context.WithCancelCause(ctx)
	fenced := s.fence[name]
	if fenced {
		delete(s.fence, name)
		cancel(errFenced)
	}
	return wctx, func() bool {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
		cancel(nil)
		return fenced
	}, true
}

var errFenced = errors.New("fenced")

// unblock lets the blocked keys start and adds the parked ones again.
func (s *fakeSharder) unblock() {
	s.mu.Lock()
	clear(s.blocked)
	parked := slices.Sorted(maps.Keys(s.parked))
	clear(s.parked)
	keys := s.keys
	s.mu.Unlock()
	for _, k := range parked {
		keys.Add(k)
	}
}

// gain makes this replica own names and adds those of them that the
// controller has, as a Shard does when it gains keys.
func (s *fakeSharder) gain(names ...string) {
	s.mu.Lock()
	gained := map[string]bool{}
	for _, n := range names {
		if !s.owned[n] {
			gained[n] = true
		}
		s.owned[n] = true
	}
	keys := s.keys
	s.mu.Unlock()
	for n := range keys.All() {
		if gained[n] {
			keys.Add(n)
		}
	}
}

// runSharded runs a Manager of c with Elector el over e's factory until
// the test ends.
func runSharded[K comparable](t *testing.T, e *env, el controller.Elector, c *controller.Controller[K]) {
	m := controller.NewManager(e.factory, controller.ManagerOptions{Elector: el})
	if err := m.Add(c); err != nil {
		t.Fatalf("Add() = %v", err)
	}
	runManagerStarted(t, m)
}

// TestShardedKeys: the workers reconcile only the keys the gate starts;
// dropped keys are never reconciled, even when they change; parked keys
// are reconciled once the gate adds them again; gained keys come from
// the primary informer's cache.
func TestShardedKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		var rec recorder
		c := controller.New("foos", rec.reconcile, controller.Options[string]{Logger: discard})
		if err := controller.For(c, e.fooInf); err != nil {
			t.Fatal(err)
		}
		if err := controller.Watches(c, e.barInf, ownerOf); err != nil {
			t.Fatal(err)
		}
		foos := map[string]*Foo{}
		for _, n := range []string{"a", "b", "c", "d"} {
			foos[n] = e.createFoo(n)
		}
		s := newFakeSharder("ns/a", "ns/b")
		s.blocked["ns/b"] = true
		runSharded(t, e, s, c)
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/a"}, rec.sorted()); diff != "" {
			t.Errorf("reconciled at start mismatch (-want +got):\n%s", diff)
		}

		e.updateFoo(foos["c"]) // dropped: another replica owns it
		e.createBar("x", "d")  // mapped to a dropped key
		settle(t, c)
		if got := rec.sorted(); len(got) != 0 {
			t.Errorf("reconciled %v after changes of keys owned by others, want nothing", got)
		}

		s.unblock()
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/b"}, rec.sorted()); diff != "" {
			t.Errorf("reconciled after unblock mismatch (-want +got):\n%s", diff)
		}

		s.gain("ns/c", "ns/gone")
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/c"}, rec.sorted()); diff != "" {
			t.Errorf("reconciled after gaining c mismatch (-want +got):\n%s", diff)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running != 0 {
			t.Errorf("%d works not ended", s.running)
		}
	})
}

// TestShardedFencedErrorRequeuedAtOnce: a reconcile that fails after its
// work was fenced is queued again at once, not after the backoff, and
// decided again by the gate; a fenced reconcile that succeeds is done.
func TestShardedFencedErrorRequeuedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fail  bool
		calls int
	}{
		{"error requeued at once", true, 2},
		{"success done", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, memsource.Options[*Bar]{})
				var rec recorder
				rec.result = func(ctx context.Context, _ string, n int) (queue.Result, error) {
					if tc.fail && ctx.Err() != nil {
						return queue.Result{}, context.Cause(ctx)
					}
					return queue.Result{}, nil
				}
				c := controller.New("foos", rec.reconcile, controller.Options[string]{
					Logger:      discard,
					RateLimiter: queue.NewTypedItemExponentialFailureRateLimiter[string](time.Hour, time.Hour),
				})
				if err := controller.For(c, e.fooInf); err != nil {
					t.Fatal(err)
				}
				e.createFoo("a")
				s := newFakeSharder("ns/a")
				s.fence["ns/a"] = true
				start := time.Now()
				runSharded(t, e, s, c)
				settle(t, c)
				if got := len(rec.take()); got != tc.calls {
					t.Errorf("reconciled %d times, want %d", got, tc.calls)
				}
				if d := time.Since(start); d != 0 {
					t.Errorf("done after %v, want at once", d)
				}
			})
		})
	}
}

// TestShardedKeyName: a ForKey controller is sharded by Options.KeyName,
// and without it the Manager's Run fails with ErrNoKeyName; a Sharder's
// error fails Run too.
func TestShardedKeyName(t *testing.T) {
	type fooKey struct{ ns, name string }
	keyOf := func(k string) (fooKey, error) {
		ns, name, err := keys.Split(k)
		return fooKey{ns, name}, err
	}
	for _, tc := range []struct {
		name    string
		ctl     string
		keyName func(fooKey) string
		want    error // nil: runs
	}{
		{"no key name", "foos", nil, controller.ErrNoKeyName},
		{"key name", "foos", func(k fooKey) string { return keys.Join(k.ns, k.name) }, nil},
		{"gate refused", "refused", func(k fooKey) string { return keys.Join(k.ns, k.name) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, memsource.Options[*Bar]{})
				var mu sync.Mutex
				var got []fooKey
				c := controller.New(tc.ctl, func(_ context.Context, k fooKey) (queue.Result, error) {
					mu.Lock()
					got = append(got, k)
					mu.Unlock()
					return queue.Result{}, nil
				}, controller.Options[fooKey]{Logger: discard, KeyName: tc.keyName})
				if err := controller.ForKey(c, e.fooInf, keyOf); err != nil {
					t.Fatal(err)
				}
				for i := range 4 {
					e.createFoo("f" + strconv.Itoa(i))
				}
				s := newFakeSharder("ns/f1", "ns/f3")
				m := controller.NewManager(e.factory, controller.ManagerOptions{Elector: s})
				if err := m.Add(c); err != nil {
					t.Fatal(err)
				}
				if tc.want != nil || tc.ctl == "refused" {
					err := m.Run(t.Context())
					if tc.want != nil && !errors.Is(err, tc.want) || err == nil {
						t.Errorf("Run() = %v, want an error wrapping %v", err, tc.want)
					}
					return
				}
				runManagerStarted(t, m)
				settle(t, c)
				slices.SortFunc(got, func(a, b fooKey) int { return strings.Compare(a.name, b.name) })
				if diff := cmp.Diff([]fooKey{{"ns", "f1"}, {"ns", "f3"}}, got, cmp.AllowUnexported(fooKey{})); diff != "" {
					t.Errorf("reconciled mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// runManagerStarted runs m until the test ends.
func runManagerStarted(t *testing.T, m *controller.Manager) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	})
}
