package deltafifo_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/deltafifo"
)

// TestDrainReleasesMemory fills a FIFO with a large list, drains it the way
// an informer does and checks what the FIFO still holds once its consumer
// waits for more: the slots, index and delta buffers made for the list must
// be gone. The listed objects are kept alive outside the FIFO, so the heap
// difference is the FIFO's own.
func TestDrainReleasesMemory(t *testing.T) {
	const (
		n     = 100_000
		limit = 8 // bytes per listed object; the list needs over 100
	)
	synctest.Test(t, func(t *testing.T) {
		objs := benchObjs(n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)

		f := deltafifo.New(benchKey, deltafifo.Options[*benchObj]{})
		if err := f.Replace(objs, "1"); err != nil {
			t.Fatal(err)
		}
		popped := 0
		process := func(items []deltafifo.Item[*benchObj]) error {
			popped += len(items)
			return nil
		}
		for f.Len() > 0 {
			if err := f.PopBatch(t.Context(), 1000, process); err != nil {
				t.Fatal(err)
			}
		}
		// The consumer's next PopBatch finds nothing and waits.
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- f.PopBatch(ctx, 1000, process) }()
		synctest.Wait()

		runtime.GC()
		runtime.ReadMemStats(&after)
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("PopBatch on an empty FIFO, then cancel: %v, want %v", err, context.Canceled)
		}
		if popped != n {
			t.Errorf("popped %d keys, want %d", popped, n)
		}
		runtime.KeepAlive(f)
		runtime.KeepAlive(objs)

		perObject := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		t.Logf("heap retained by the drained FIFO: %.1f B per listed object", perObject)
		if perObject > limit {
			t.Errorf("drained FIFO retains %.1f B per listed object, want at most %d", perObject, limit)
		}
	})
}

// TestReleaseSlots checks when a popper that finds the FIFO empty releases
// its slots, and that a FIFO that did behaves as before: the released
// slots were idle, so only the keys' next deltas need new ones.
func TestReleaseSlots(t *testing.T) {
	tests := []struct {
		name      string
		keep      int
		inFlight  bool // a processor holds a key while the FIFO is empty
		wantSlots int  // after the empty pop
	}{
		{name: "more than kept", keep: 2, wantSlots: 0},
		{name: "up to kept", keep: 3, wantSlots: 3},
		{name: "key in flight", keep: 0, inFlight: true, wantSlots: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cache := newKnown()
				f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: cache})
				f.SetKeepSlots(tt.keep)
				if err := f.Replace([]thing{th("a", 1), th("b", 1), th("c", 1)}, "1"); err != nil {
					t.Fatal(err)
				}
				var got []popped
				if err := f.PopBatch(t.Context(), 2, func(items []deltafifo.Item[thing]) error {
					for _, it := range items {
						got = append(got, popped{it.Key, slices.Clone(it.Deltas), it.InInitialList})
						cache.apply(it.Deltas)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				hold := make(chan struct{})
				last := startPop(t.Context(), f, func(p popped) error {
					cache.apply(p.Deltas)
					if tt.inFlight {
						<-hold
					}
					return nil
				})
				synctest.Wait()

				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				if err := f.Pop(ctx, nil); err != context.Canceled {
					t.Errorf("Pop(done context) = %v, want %v", err, context.Canceled)
				}
				if got := f.Slots(); got != tt.wantSlots {
					t.Errorf("Slots() after a pop found the FIFO empty = %d, want %d", got, tt.wantSlots)
				}
				close(hold)
				synctest.Wait()
				got = append(got, last.got)
				if err := f.CheckInvariants(); err != nil {
					t.Fatalf("CheckInvariants() = %v", err)
				}
				if !f.HasSynced() {
					t.Errorf("HasSynced() = false after the list was processed, want true")
				}

				// Known keys still count: a deletion is kept, a relist
				// infers the deletion of a missing key.
				if err := f.Delete(th("a", 2)); err != nil {
					t.Fatal(err)
				}
				if err := f.Replace([]thing{th("b", 3)}, "2"); err != nil {
					t.Fatal(err)
				}
				for f.Len() > 0 {
					p := startPop(t.Context(), f, nil)
					synctest.Wait()
					got = append(got, p.got)
				}
				want := []popped{
					{"a", ds(replaced("a", 1)), true},
					{"b", ds(replaced("b", 1)), true},
					{"c", ds(replaced("c", 1)), true},
					{"a", ds(deleted("a", 2)), false},
					{"b", ds(replaced("b", 3)), false},
					{"c", ds(inferred("c", 1)), false},
				}
				diffPopped(t, "Pop()", want, got)
			})
		})
	}
}
