package informer_test

// Tests named after the shared-informer subtleties of
// /work/shared/reference/anchors.md (b) 23-31, in order.

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
	"github.com/typedcache/typedcache/reflector"
)

// (b) 23, first half: a registration is synced only once its handler has
// returned from OnAdd for every object of the initial list, even though
// the informer itself is synced.
func TestRegistrationSyncedOnlyAfterInitialAddsDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2), newObj("c", 3))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		g := newGate(rec, always)
		slow := mustAdd(t, inf, g, informer.HandlerOptions{Name: "slow"})
		fast := mustAdd(t, inf, newRecorder(), informer.HandlerOptions{Name: "fast"})
		start(t, inf)
		synctest.Wait()

		if !inf.HasSynced() || !fast.HasSynced() {
			t.Fatalf("informer synced %t, fast handler synced %t; want both true", inf.HasSynced(), fast.HasSynced())
		}
		if slow.HasSynced() {
			t.Fatal("slow registration HasSynced() = true while its handler is stuck in its first OnAdd")
		}
		if got := slow.Stats().Pending; got != 3 {
			t.Errorf("slow Stats().Pending = %d, want 3", got)
		}
		g.Open()
		if err := slow.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		if got := len(rec.take()); got != 3 {
			t.Errorf("slow handler received %d adds when synced, want 3", got)
		}
	})
}

// (b) 23, second half: a handler added after the informer synced first
// receives OnAdd(obj, true) for every cached object, atomically with
// respect to the deltas being applied: it never sees a change twice or a
// change of an object it was not told about.
func TestLateHandlerReplaysCacheAtomically(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50
		src := newSource(t, memsource.Options[*obj]{})
		for i := range n {
			create(t, src, fmt.Sprint(i), 0)
		}
		inf := informer.New(src, quiet(t))
		start(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}

		var writers sync.WaitGroup
		writers.Go(func() {
			for round := 1; round <= 20; round++ {
				for i := range n {
					switch {
					case i%7 == round%7:
						remove(t, src, fmt.Sprint(i))
						create(t, src, fmt.Sprint(i), round)
					default:
						update(t, src, fmt.Sprint(i), round)
					}
				}
			}
		})
		var recs []*recorder
		var regs []*informer.Registration[*obj]
		for range 5 {
			rec := newRecorder()
			recs = append(recs, rec)
			regs = append(regs, mustAdd(t, inf, rec, informer.HandlerOptions{}))
		}
		writers.Wait()
		synctest.Wait()

		want := valuesOf(slices.Values(inf.Cache().List()))
		for i, rec := range recs {
			if !regs[i].HasSynced() {
				t.Errorf("late handler %d not synced", i)
			}
			if len(rec.problems) > 0 {
				t.Errorf("late handler %d saw inconsistent notifications:\n%s", i, join(rec.problems))
			}
			if diff := cmp.Diff(want, rec.values()); diff != "" {
				t.Errorf("late handler %d view mismatch (-cache +handler):\n%s", i, diff)
			}
		}
	})
}

// A late handler's replay marks every add as part of the initial list, and
// it is synced once they are delivered.
func TestLateHandlerGetsInitialAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
		inf := informer.New(src, quiet(t))
		start(t, inf)
		synctest.Wait()
		rec := newRecorder()
		g := newGate(rec, always)
		reg := mustAdd(t, inf, g, informer.HandlerOptions{})
		synctest.Wait()
		if reg.HasSynced() {
			t.Fatal("late registration synced before its replay was delivered")
		}
		g.Open()
		synctest.Wait()
		want := []string{"add ns/a v1 initial=true", "add ns/b v2 initial=true"}
		if diff := cmp.Diff(want, sorted(rec.take())); diff != "" {
			t.Errorf("replay mismatch (-want +got):\n%s", diff)
		}
		if !reg.HasSynced() {
			t.Error("late registration not synced after its replay")
		}
	})
}

// (b) 24: an update with an unchanged resource version is a resync and
// goes only to the handlers whose resync period has elapsed.
func TestResyncGoesOnlyToDueHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
		inf := informer.New(src, informer.Options[*obj]{ResyncPeriod: time.Minute})
		never, every, third := newRecorder(), newRecorder(), newRecorder()
		mustAdd(t, inf, never, informer.HandlerOptions{ResyncPeriod: -1})
		mustAdd(t, inf, every, informer.HandlerOptions{})
		mustAdd(t, inf, third, informer.HandlerOptions{ResyncPeriod: 3 * time.Minute})
		start(t, inf)
		synctest.Wait()
		for _, r := range []*recorder{never, every, third} {
			r.take()
		}
		resync := []string{"update ns/a v1->v1", "update ns/b v2->v2"}
		for minute := 1; minute <= 3; minute++ {
			time.Sleep(time.Minute)
			synctest.Wait()
			if got := never.take(); len(got) != 0 {
				t.Errorf("minute %d: handler without resync got %q", minute, got)
			}
			if diff := cmp.Diff(resync, sorted(every.take())); diff != "" {
				t.Errorf("minute %d: 1m handler mismatch (-want +got):\n%s", minute, diff)
			}
			var want []string
			if minute == 3 {
				want = resync
			}
			if diff := cmp.Diff(want, sorted(third.take())); diff != "" {
				t.Errorf("minute %d: 3m handler mismatch (-want +got):\n%s", minute, diff)
			}
		}
	})
}

// (b) 24, DESIGN.md's deliberate difference: after a relist, an object
// whose resource version did not change is not re-delivered to a handler
// whose resync is not due (client-go v0.37 re-delivers it to every
// handler without a resync period). Changed objects are delivered.
func TestRelistRedeliversUnchangedObjectsOnlyOnResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("same", 1), newObj("changed", 2))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		rec.take()

		outage(src, func() { update(t, src, "changed", 20) })
		if diff := cmp.Diff([]string{"update ns/changed v2->v20"}, rec.take()); diff != "" {
			t.Errorf("events after relist mismatch (-want +got):\n%s", diff)
		}
	})
}

// (b) 25: client-go's resync period rules.
func TestResyncPeriodRules(t *testing.T) {
	tests := []struct {
		name                   string
		informer               time.Duration
		before                 []time.Duration // handlers added before Run
		after                  time.Duration   // one handler added after Run, if non-zero
		wantHandler, wantCheck time.Duration   // for the last handler
		wantFirst              time.Duration   // for the first handler, if several
	}{
		{name: "default", informer: 10 * time.Minute, before: []time.Duration{0}, wantHandler: 10 * time.Minute, wantCheck: 10 * time.Minute},
		{name: "longer than check", informer: 10 * time.Minute, before: []time.Duration{time.Hour}, wantHandler: time.Hour, wantCheck: 10 * time.Minute},
		{name: "negative means never", informer: 10 * time.Minute, before: []time.Duration{-1}, wantHandler: 0, wantCheck: 10 * time.Minute},
		{name: "zero check disables every resync", informer: 0, before: []time.Duration{5 * time.Minute}, wantHandler: 0, wantCheck: 0},
		{name: "raised to the 1s minimum, lowering the check period", informer: 10 * time.Minute, before: []time.Duration{time.Millisecond}, wantHandler: time.Second, wantCheck: time.Second},
		{
			name: "shorter before Run lowers the check period for all", informer: 10 * time.Minute,
			before:      []time.Duration{0, 2 * time.Minute},
			wantHandler: 2 * time.Minute, wantCheck: 2 * time.Minute, wantFirst: 10 * time.Minute,
		},
		{name: "shorter after Run is raised to the check period", informer: 10 * time.Minute, after: 2 * time.Minute, wantHandler: 10 * time.Minute, wantCheck: 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inf := informer.New(newSource(t, memsource.Options[*obj]{}), informer.Options[*obj]{ResyncPeriod: tt.informer})
				var regs []*informer.Registration[*obj]
				for _, p := range tt.before {
					regs = append(regs, mustAdd(t, inf, newRecorder(), informer.HandlerOptions{ResyncPeriod: p}))
				}
				if tt.after != 0 {
					start(t, inf)
					synctest.Wait()
					regs = append(regs, mustAdd(t, inf, newRecorder(), informer.HandlerOptions{ResyncPeriod: tt.after}))
				}
				handler, check := informer.ResyncPeriods(inf, regs[len(regs)-1])
				if handler != tt.wantHandler || check != tt.wantCheck {
					t.Errorf("handler period %v, check period %v; want %v, %v", handler, check, tt.wantHandler, tt.wantCheck)
				}
				if len(regs) > 1 {
					if first, _ := informer.ResyncPeriods(inf, regs[0]); first != tt.wantFirst {
						t.Errorf("first handler period %v, want %v", first, tt.wantFirst)
					}
				}
			})
		})
	}
}

// (b) 25, behaviour: a handler's sub-second period is raised to one
// second, which becomes the reflector's check period.
func TestShortResyncPeriodRaisedToOneSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		inf := informer.New(src, informer.Options[*obj]{ResyncPeriod: time.Hour})
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{ResyncPeriod: time.Millisecond})
		start(t, inf)
		synctest.Wait()
		rec.take()
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		if got := rec.take(); len(got) != 0 {
			t.Errorf("events before one second: %q", got)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if diff := cmp.Diff([]string{"update ns/a v1->v1"}, rec.take()); diff != "" {
			t.Errorf("events after one second mismatch (-want +got):\n%s", diff)
		}
	})
}

// (b) 26: Run twice is an error; adding a handler or indexes after the
// informer stopped is an error; waiting for a sync that can no longer
// happen is an error.
func TestLifecycleErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{Faults: memsource.Faults{FailLists: 1 << 30, FailWatches: 1 << 30}})
		inf := informer.New(src, informer.Options[*obj]{ErrorHandler: func(context.Context, error) {}})
		reg := mustAdd(t, inf, newRecorder(), informer.HandlerOptions{})
		stop := start(t, inf)
		synctest.Wait()
		if err := inf.Run(t.Context()); !errors.Is(err, informer.ErrStarted) {
			t.Errorf("second Run() = %v, want ErrStarted", err)
		}
		stop()
		if _, err := inf.AddEventHandler(newRecorder()); !errors.Is(err, informer.ErrStopped) {
			t.Errorf("AddEventHandler() after stop = %v, want ErrStopped", err)
		}
		if err := inf.AddIndexers(nil); !errors.Is(err, informer.ErrStopped) {
			t.Errorf("AddIndexers() after stop = %v, want ErrStopped", err)
		}
		if err := inf.WaitForSync(t.Context()); !errors.Is(err, informer.ErrStopped) {
			t.Errorf("informer WaitForSync() = %v, want ErrStopped", err)
		}
		if err := reg.WaitForSync(t.Context()); !errors.Is(err, informer.ErrStopped) {
			t.Errorf("registration WaitForSync() = %v, want ErrStopped", err)
		}
		select {
		case <-reg.Done():
		default:
			t.Error("registration Done() not closed after Run returned")
		}
	})
}

// (b) 27: buffers are unbounded by default: a stalled handler accumulates
// every notification, visibly in Stats, while the others keep up.
func TestStalledHandlerBuffersWithoutBlockingOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0))
		inf := informer.New(src, quiet(t))
		stalled, healthy := newRecorder(), newRecorder()
		g := newGate(stalled, always)
		stalledReg := mustAdd(t, inf, g, informer.HandlerOptions{})
		mustAdd(t, inf, healthy, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		for i := 1; i <= 100; i++ {
			update(t, src, "a", i)
		}
		synctest.Wait()
		if got := len(healthy.take()); got != 101 {
			t.Errorf("healthy handler got %d notifications, want 101", got)
		}
		if got := stalledReg.Stats().Pending; got != 101 {
			t.Errorf("stalled Stats().Pending = %d, want 101", got)
		}
		g.Open()
		synctest.Wait()
		got := stalled.take()
		if len(got) != 101 || got[100] != "update ns/a v99->v100" {
			t.Errorf("stalled handler got %d notifications ending %q, want 101 ending in the last update", len(got), got[len(got)-1])
		}
		if s := stalledReg.Stats(); s.Pending != 0 || s.Delivered != 101 {
			t.Errorf("Stats() = %+v, want Pending 0, Delivered 101", s)
		}
	})
}

// (b) 28: a panicking handler's notification is skipped and reported; the
// next one is delivered at once (client-go pauses a second), and other
// handlers and the cache are unaffected.
func TestHandlerPanicIsRecoveredAndReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("bad", 2), newObj("c", 3))
		var mu sync.Mutex
		var reported []error
		inf := informer.New(src, informer.Options[*obj]{ErrorHandler: func(_ context.Context, err error) {
			mu.Lock()
			reported = append(reported, err)
			mu.Unlock()
		}})
		rec, other := newRecorder(), newRecorder()
		h := informer.HandlerFuncs[*obj]{AddFunc: func(o *obj, initial bool) {
			if o.Name == "bad" {
				panic("boom")
			}
			rec.OnAdd(o, initial)
		}}
		reg := mustAdd(t, inf, h, informer.HandlerOptions{Name: "panicky"})
		mustAdd(t, inf, other, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()

		if diff := cmp.Diff(map[string]int{"ns/a": 1, "ns/c": 3}, rec.values()); diff != "" {
			t.Errorf("panicking handler's view mismatch (-want +got):\n%s", diff)
		}
		if got := len(other.values()); got != 3 {
			t.Errorf("other handler has %d objects, want 3", got)
		}
		if !reg.HasSynced() {
			t.Error("registration not synced: a panicking OnAdd must still count as delivered")
		}
		if s := reg.Stats(); s.Panics != 1 || s.Delivered != 3 {
			t.Errorf("Stats() = %+v, want Panics 1, Delivered 3", s)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reported) != 1 {
			t.Fatalf("ErrorHandler got %d errors, want 1: %v", len(reported), reported)
		}
		pe, ok := errors.AsType[*informer.HandlerPanicError](reported[0])
		if !ok {
			t.Fatalf("reported error %v is not a *HandlerPanicError", reported[0])
		}
		if pe.Handler != "panicky" || pe.Method != "OnAdd" || pe.Key != "ns/bad" || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "panic") {
			t.Errorf("HandlerPanicError = %+v, want handler panicky, OnAdd, ns/bad, boom, with a stack", pe)
		}
	})
}

// (b) 29: RemoveEventHandler returns at once; the call in progress
// finishes, and Done reports when the handler will never run again.
func TestRemoveEventHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		g := newGate(rec, always)
		reg := mustAdd(t, inf, g, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatalf("RemoveEventHandler() = %v", err)
		}
		synctest.Wait()
		select {
		case <-reg.Done():
			t.Fatal("Done() closed while a handler call is in progress")
		default:
		}
		g.Open()
		<-reg.Done()
		update(t, src, "a", 10)
		synctest.Wait()
		if got := rec.take(); len(got) != 1 {
			t.Errorf("removed handler got %q, want only the call in progress at removal", got)
		}
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Errorf("second RemoveEventHandler() = %v, want nil", err)
		}
		other := informer.New(src, quiet(t))
		if err := other.RemoveEventHandler(reg); !errors.Is(err, informer.ErrForeignRegistration) {
			t.Errorf("RemoveEventHandler() on another informer = %v, want ErrForeignRegistration", err)
		}
		if err := inf.RemoveEventHandler(nil); err == nil || errors.Is(err, informer.ErrForeignRegistration) || !strings.Contains(err.Error(), "got nil") {
			t.Errorf("RemoveEventHandler(nil) = %v, want an error that says it got nil", err)
		}
	})
}

// (b) 30: an object deleted while the informer was not watching is
// reported, after the relist, as an inferred deletion carrying its last
// cached state.
func TestDeletionMissedDuringOutageIsInferred(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("gone", 2))
		inf := informer.New(src, quiet(t))
		var mu sync.Mutex
		var deleted []informer.Deleted[*obj]
		mustAdd(t, inf, informer.HandlerFuncs[*obj]{DeleteFunc: func(d informer.Deleted[*obj]) {
			mu.Lock()
			deleted = append(deleted, d)
			mu.Unlock()
		}}, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		outage(src, func() { remove(t, src, "gone") })

		mu.Lock()
		defer mu.Unlock()
		want := []informer.Deleted[*obj]{{Key: "ns/gone", Object: &obj{Namespace: "ns", Name: "gone", RV: "3", Value: 2}, Inferred: true}}
		if diff := cmp.Diff(want, deleted); diff != "" {
			t.Errorf("deletions mismatch (-want +got):\n%s", diff)
		}
		if _, ok := inf.Lister().Get("ns", "gone"); ok {
			t.Error("inferred deletion left the object in the cache")
		}
	})
}

// (b) 31: the key is the identity: an object deleted and created again
// under the same name while the informer was not watching is an update.
func TestDeleteAndRecreateDuringOutageIsUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		rec.take()
		outage(src, func() {
			remove(t, src, "a")
			create(t, src, "a", 5)
		})
		if diff := cmp.Diff([]string{"update ns/a v1->v5"}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
}

// A watch event is a change the source reported: it reaches every handler
// even when its resource version equals the cached one (client-go would
// take it for a resync). Only Sync and unchanged Replaced deltas are
// resyncs.
func TestWatchUpdateWithUnchangedVersionIsDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newChanSource([]*benchObj{{Namespace: "ns", Name: "a", RV: "1"}})
		inf := informer.New(src, informer.Options[*benchObj]{})
		var updates []string
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[*benchObj]{UpdateFunc: func(old, new *benchObj) {
			updates = append(updates, old.RV+"->"+new.RV)
		}})
		if err != nil {
			t.Fatal(err)
		}
		start(t, inf)
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: &benchObj{Namespace: "ns", Name: "a", RV: "1"}}
		src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: &benchObj{Namespace: "ns", Name: "a"}}
		src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: &benchObj{Namespace: "ns", Name: "a"}}
		synctest.Wait()
		if diff := cmp.Diff([]string{"1->1", "1->", "->"}, updates); diff != "" {
			t.Errorf("updates mismatch (-want +got):\n%s", diff)
		}
	})
}
