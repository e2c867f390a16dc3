package informer_test

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// A Block buffer holds at most Size waiting notifications: once it is
// full, the informer waits, so the other handlers stop receiving too.
// Everything is delivered once the handler catches up.
func TestBlockBufferBackPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0))
		inf := informer.New(src, quiet(t))
		slow, other := newRecorder(), newRecorder()
		g := newGate(slow, func(o *obj) bool { return o.Value > 0 })
		reg := mustAdd(t, inf, g, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 5, Overflow: informer.Block}})
		mustAdd(t, inf, other, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		for i := 1; i <= 50; i++ {
			update(t, src, "a", i)
		}
		synctest.Wait()
		s := reg.Stats()
		// One update is in the handler, four wait, and the informer waits
		// to push the next.
		if s.Pending != 5 || s.BlockedPushes == 0 {
			t.Errorf("Stats() = %+v, want Pending 5 and BlockedPushes > 0", s)
		}
		if got := len(other.take()); got >= 50 {
			t.Errorf("other handler got %d notifications while the informer was blocked, want fewer than 50", got)
		}
		g.Open()
		synctest.Wait()
		want := map[string]int{"ns/a": 50}
		if diff := cmp.Diff(want, slow.values()); diff != "" {
			t.Errorf("slow handler view mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, other.values()); diff != "" {
			t.Errorf("other handler view mismatch (-want +got):\n%s", diff)
		}
		if got := len(slow.take()); got != 51 {
			t.Errorf("slow handler got %d notifications, want all 51", got)
		}
	})
}

// While a handler's Block buffer is full, the reflector still takes every
// event from the source: only the processing goroutine waits, and the
// events it has not applied wait in the DeltaFIFO. The reflector never
// applies an event itself while a handler has a Block buffer.
func TestBlockBufferNeverStopsTheReflector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0), newObj("b", 0))
		inf := informer.New(src, quiet(t))
		slow := newRecorder()
		g := newGate(slow, func(o *obj) bool { return o.Value > 0 })
		mustAdd(t, inf, g, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 1, Overflow: informer.Block}})
		start(t, inf)
		synctest.Wait()
		for i := 1; i <= 20; i++ {
			update(t, src, "a", i)
			update(t, src, "b", i)
		}
		synctest.Wait()
		if got, want := inf.LastSyncResourceVersion(), src.ResourceVersion(); got != want {
			t.Errorf("LastSyncResourceVersion() = %q while the handler blocks, want the source's %q", got, want)
		}
		g.Open()
		synctest.Wait()
		if diff := cmp.Diff(map[string]int{"ns/a": 20, "ns/b": 20}, slow.values()); diff != "" {
			t.Errorf("slow handler view mismatch (-want +got):\n%s", diff)
		}
	})
}

// A Coalesce buffer never makes the informer wait: past Size, it merges
// the notifications of each key, so that the handler skips intermediate
// states but ends with the exact view of the cache.
func TestCoalesceBufferMergesByKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0), newObj("b", 0), newObj("c", 0))
		inf := informer.New(src, quiet(t))
		slow, other := newRecorder(), newRecorder()
		g := newGate(slow, always)
		reg := mustAdd(t, inf, g, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 2, Overflow: informer.Coalesce}})
		mustAdd(t, inf, other, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		other.take()
		for i := 1; i <= 30; i++ {
			update(t, src, "a", i)
			update(t, src, "b", i)
		}
		remove(t, src, "c")
		create(t, src, "d", 1)
		remove(t, src, "d")
		synctest.Wait()

		if got := len(other.take()); got != 63 {
			t.Errorf("other handler got %d notifications, want 63: a coalescing buffer must not hold up the informer", got)
		}
		s := reg.Stats()
		// At most Size pending plus one per key in the overflow.
		if s.Pending > 2+4 || s.Coalesced == 0 {
			t.Errorf("Stats() = %+v, want Pending <= 6 and Coalesced > 0", s)
		}
		g.Open()
		synctest.Wait()
		want := map[string]int{"ns/a": 30, "ns/b": 30}
		if diff := cmp.Diff(want, slow.values()); diff != "" {
			t.Errorf("slow handler view mismatch (-want +got):\n%s", diff)
		}
		if len(slow.problems) > 0 {
			t.Errorf("slow handler saw inconsistent notifications:\n%s", join(slow.problems))
		}
		if n := len(slow.take()); n >= 66 {
			t.Errorf("slow handler got %d notifications, want fewer than the 66 sent", n)
		}
		if !reg.HasSynced() {
			t.Error("registration not synced")
		}
	})
}

// Initial-list adds merged away by a coalescing buffer still count as
// delivered for the registration's HasSynced.
func TestCoalescedInitialAddsStillSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{})
		for i := range 10 {
			create(t, src, fmt.Sprint(i), 0)
		}
		inf := informer.New(src, quiet(t))
		start(t, inf)
		synctest.Wait()
		rec := newRecorder()
		g := newGate(rec, always)
		reg := mustAdd(t, inf, g, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 1, Overflow: informer.Coalesce}})
		for i := range 10 {
			if i%2 == 0 {
				remove(t, src, fmt.Sprint(i))
			} else {
				update(t, src, fmt.Sprint(i), 1)
			}
		}
		synctest.Wait()
		g.Open()
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		synctest.Wait()
		want := valuesOf(slices.Values(inf.Cache().List()))
		if diff := cmp.Diff(want, rec.values()); diff != "" {
			t.Errorf("handler view mismatch (-cache +handler):\n%s", diff)
		}
	})
}

// A handler may remove its own registration, even while the informer is
// blocked on its full Block buffer.
func TestHandlerRemovesItselfWhileBlocking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0))
		inf := informer.New(src, quiet(t))
		var reg *informer.Registration[*obj]
		calls := 0
		release := make(chan struct{})
		reg = mustAdd(t, inf, informer.HandlerFuncs[*obj]{UpdateFunc: func(_, o *obj) {
			calls++
			if o.Value == 1 {
				<-release
				if err := inf.RemoveEventHandler(reg); err != nil {
					t.Errorf("RemoveEventHandler() from the handler = %v", err)
				}
			}
		}}, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 1, Overflow: informer.Block}})
		other := newRecorder()
		mustAdd(t, inf, other, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		for i := 1; i <= 10; i++ {
			update(t, src, "a", i)
		}
		synctest.Wait()
		if s := reg.Stats(); s.BlockedPushes == 0 {
			t.Fatalf("Stats() = %+v, want the informer blocked on the handler", s)
		}
		close(release)
		<-reg.Done()
		synctest.Wait()
		if calls != 1 {
			t.Errorf("handler called %d times, want once: it removed itself in its first update", calls)
		}
		if diff := cmp.Diff(map[string]int{"ns/a": 10}, other.values()); diff != "" {
			t.Errorf("other handler view mismatch (-want +got):\n%s", diff)
		}
	})
}

// Adding a handler after Run does not wait for a handler whose full Block
// buffer holds up the informer: the informer waits for room without
// holding the lock registrations need. The late handler receives the
// cache as it was at that instant, then every later change.
func TestAddHandlerWhileBlockedOnFullBuffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{})
		for i := range 5 {
			create(t, src, fmt.Sprint(i), 0)
		}
		inf := informer.New(src, quiet(t))
		slow := mustAdd(t, inf, informer.HandlerFuncs[*obj]{AddFunc: func(*obj, bool) {
			time.Sleep(time.Second)
		}}, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 1, Overflow: informer.Block}})
		start(t, inf)
		time.Sleep(10 * time.Millisecond)
		if s := slow.Stats(); s.BlockedPushes == 0 {
			t.Fatalf("Stats() = %+v, want the informer blocked on the slow handler", s)
		}

		start := time.Now()
		late := newRecorder()
		reg := mustAdd(t, inf, late, informer.HandlerOptions{})
		if d := time.Since(start); d != 0 {
			t.Errorf("AddEventHandler took %v while the informer waited for a full buffer, want no wait", d)
		}
		other := newRecorder()
		otherReg := mustAdd(t, inf, other, informer.HandlerOptions{})
		if err := inf.RemoveEventHandler(otherReg); err != nil {
			t.Errorf("RemoveEventHandler() = %v", err)
		}
		create(t, src, "new", 1)
		update(t, src, "0", 2)
		if err := informer.WaitForCacheSync(t.Context(), slow, reg); err != nil {
			t.Fatalf("WaitForCacheSync() = %v", err)
		}
		// The slow handler takes a second per add.
		time.Sleep(time.Minute)
		synctest.Wait()

		want := valuesOf(slices.Values(inf.Cache().List()))
		if len(want) != 6 {
			t.Errorf("cache holds %d objects, want 6", len(want))
		}
		if diff := cmp.Diff(want, late.values()); diff != "" {
			t.Errorf("late handler view mismatch (-cache +handler):\n%s", diff)
		}
		if len(late.problems) > 0 {
			t.Errorf("late handler saw inconsistent notifications:\n%s", join(late.problems))
		}
	})
}
