package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// A list into an empty cache is applied by the reflector's goroutine
// itself, unless a handler's buffer is bounded with Block; either way the
// handlers hear the same thing. The path shows while an index function
// holds the list's first object: a list applied in place never enters the
// FIFO, while the FIFO's path holds the first batch of 1000 keys and
// still queues the rest.
func TestListPath(t *testing.T) {
	unbounded := informer.HandlerOptions{}
	coalesce := informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 10, Overflow: informer.Coalesce}}
	block := informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 5000, Overflow: informer.Block}}
	for _, tc := range []struct {
		name       string
		handlers   []informer.HandlerOptions
		wantQueued int
	}{
		{"no handler", nil, 0},
		{"one unbounded handler", []informer.HandlerOptions{unbounded}, 0},
		{"unbounded and coalescing handlers", []informer.HandlerOptions{unbounded, coalesce, unbounded}, 0},
		{"a blocking handler among others", []informer.HandlerOptions{unbounded, block}, 1001 - 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				objs := numbered("o", 1001)
				src := newSource(t, memsource.Options[*obj]{}, objs...)
				opts := quiet(t)
				var gate chan struct{}
				opts.Indexers, gate = holdAt("o0000")
				inf := informer.New(src, opts)
				var recs []*recorder
				var regs []*informer.Registration[*obj]
				for _, ho := range tc.handlers {
					rec := newRecorder()
					recs, regs = append(recs, rec), append(regs, mustAdd(t, inf, rec, ho))
				}
				start(t, inf)
				synctest.Wait() // the list is held at its first object

				if q := inf.Stats().Queued; q != tc.wantQueued {
					t.Errorf("Stats().Queued = %d while the list is held, want %d", q, tc.wantQueued)
				}
				if inf.HasSynced() {
					t.Error("HasSynced() = true while the list is held")
				}
				close(gate)
				synctest.Wait()

				if !inf.HasSynced() {
					t.Error("HasSynced() = false once the list is applied")
				}
				if n := inf.Cache().Len(); n != len(objs) {
					t.Errorf("Cache().Len() = %d, want %d", n, len(objs))
				}
				var want []string
				for _, o := range objs {
					want = append(want, fmt.Sprintf("add ns/%s v%d initial=true", o.Name, o.Value))
				}
				for i, rec := range recs {
					if !regs[i].HasSynced() {
						t.Errorf("handler %d: HasSynced() = false once its notifications are delivered", i)
					}
					got := rec.take()
					if tc.handlers[i] == coalesce {
						// Coalescing keeps order across keys but may
						// deliver a batch in pieces; it merges nothing here.
						got = sorted(got)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("handler %d: notifications mismatch (-want +got):\n%s", i, diff)
					}
				}
			})
		})
	}
}

// A list that the reflector applies itself is applied whole or not at
// all: when the transform fails on one object, none is cached and no
// handler hears of any, and the informer is not synced until a later list
// succeeds.
func TestFailedListAppliesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2), newObj("c", 3))
		var mu sync.Mutex
		var errs []string
		failed := false
		inf := informer.New(src, informer.Options[*obj]{
			ErrorHandler: func(_ context.Context, err error) {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			},
			Transform: func(o *obj) (*obj, error) {
				if o.Name == "b" && !failed {
					failed = true
					return nil, errors.New("b is not ready")
				}
				return o, nil
			},
		})
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait() // the first list failed; the reflector waits to list again

		if n := inf.Cache().Len(); n != 0 {
			t.Errorf("Cache().Len() = %d after the failed list, want 0", n)
		}
		if got := rec.take(); len(got) != 0 {
			t.Errorf("handler heard %q of the failed list", got)
		}
		if inf.HasSynced() {
			t.Error("HasSynced() = true after the failed list")
		}
		mu.Lock()
		reported := slices.ContainsFunc(errs, func(e string) bool {
			return strings.Contains(e, `list item 1: transforming "ns/b": b is not ready`)
		})
		mu.Unlock()
		if !reported {
			t.Errorf("errors reported = %q, want the transform's, naming item 1", errs)
		}

		time.Sleep(time.Hour) // past the reflector's backoff
		synctest.Wait()
		want := []string{"add ns/a v1 initial=true", "add ns/b v2 initial=true", "add ns/c v3 initial=true"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("notifications after the second list mismatch (-want +got):\n%s", diff)
		}
		if !inf.HasSynced() {
			t.Error("HasSynced() = false after the second list")
		}
	})
}

// A relist into a cache that its deletions emptied is applied in place
// too, and its objects are not part of the initial list: only the first
// list's are.
func TestRelistIntoEmptyCacheIsNotInitial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		outage(src, func() { remove(t, src, "a") })
		outage(src, func() { create(t, src, "b", 2) })

		want := []string{"add ns/a v1 initial=true", "delete ns/a v1 inferred", "add ns/b v2 initial=false"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("notifications mismatch (-want +got):\n%s", diff)
		}
	})
}

// An informer stopped while its reflector applies a list: the handler
// does not get the rest of the list, and its registration never reports
// synced.
func TestStopDuringListLeavesRegistrationUnsynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		objs := numbered("o", 3000)
		src := newSource(t, memsource.Options[*obj]{}, objs...)
		opts := quiet(t)
		var gate chan struct{}
		opts.Indexers, gate = holdAt("o0500")
		inf := informer.New(src, opts)
		rec := newRecorder()
		reg := mustAdd(t, inf, rec, informer.HandlerOptions{})
		stop := start(t, inf)
		synctest.Wait() // the list is held at o0500
		stopped := make(chan struct{})
		go func() { stop(); close(stopped) }()
		synctest.Wait() // Run waits for the reflector
		close(gate)
		<-stopped

		if got := len(rec.take()); got == len(objs) {
			t.Fatalf("the handler got all %d adds: the stop came too late for the test's point", got)
		}
		if reg.HasSynced() {
			t.Error("Registration.HasSynced() = true after a stop that cut the list short")
		}
	})
}

// The Transform runs before the reflector takes the cache's lock: a
// handler added while a list is being transformed is not held up by it,
// and then receives the whole list. (No synctest bubble: a goroutine
// blocked on a mutex, as AddEventHandler would be, never lets it settle.)
func TestListTransformDoesNotHoldHandlers(t *testing.T) {
	objs := numbered("o", 1500)
	src := newSource(t, memsource.Options[*obj]{}, objs...)
	opts := quiet(t)
	reached, gate := make(chan struct{}), make(chan struct{})
	held := false
	opts.Transform = func(o *obj) (*obj, error) {
		if !held && o.Name == "o0100" {
			held = true // transforms run on the reflector's goroutine
			close(reached)
			<-gate
		}
		return o, nil
	}
	inf := informer.New(src, opts)
	mustAdd(t, inf, newRecorder(), informer.HandlerOptions{})
	start(t, inf)
	<-reached // the list's transform is held at o0100

	late := newRecorder()
	added := make(chan *informer.Registration[*obj])
	go func() { added <- mustAdd(t, inf, late, informer.HandlerOptions{}) }()
	var reg *informer.Registration[*obj]
	select {
	case reg = <-added:
	case <-time.After(time.Minute):
		t.Fatal("AddEventHandler still waits for the list's transform after a minute")
	}
	close(gate)
	if err := reg.WaitForSync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := len(late.values()); got != len(objs) {
		t.Errorf("the handler added during the list has %d objects, want %d", got, len(objs))
	}
}

// Two listed objects that the KeyFunc maps to one key (the source never
// lists one object twice) are applied in list order when the reflector
// applies the list: the second is an update, after the objects listed
// between them.
func TestListWithRepeatedKeyIsAppliedInListOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{},
			&obj{Namespace: "ns1", Name: "a", Value: 1}, &obj{Namespace: "ns1", Name: "b", Value: 2}, &obj{Namespace: "ns2", Name: "a", Value: 3})
		opts := quiet(t)
		opts.KeyFunc = func(o *obj) (string, error) { return o.Name, nil }
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		want := []string{"add ns1/a v1 initial=true", "add ns1/b v2 initial=true", "update ns2/a v1->v3"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("notifications mismatch (-want +got):\n%s", diff)
		}
	})
}
