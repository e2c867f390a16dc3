package deltafifo_test

import (
	"context"
	"runtime"
	"slices"
	"strconv"
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

// TestReleasePolicy checks, drain by drain, how many slots a FIFO keeps
// when a popper finds it empty: a burst is released at the drain that ends
// it unless recent drains needed half of it, steady traffic keeps what it
// needs, and a burst that was kept is released once a block of drains
// without it has passed. Each drain adds one delta for each of a number of
// keys (cycling over a pool larger than any drain, so that keys change),
// pops them all and then pops once more with a done context, which finds
// the FIFO empty.
func TestReleasePolicy(t *testing.T) {
	const keep = 4
	type phase struct {
		keys   int // keys added before each drain; 0: none
		drains int
		want   int // Slots() after each drain of the phase
	}
	b := deltafifo.ReleaseBlock
	tests := []struct {
		name   string
		phases []phase
	}{
		{name: "burst into a new FIFO", phases: []phase{{100, 1, 0}, {2, 3, 2}}},
		{name: "at most keepSlots", phases: []phase{{keep, 1, keep}, {1, 2 * b, keep}}},
		{name: "steady", phases: []phase{{20, 1, 0}, {20, 3 * b, 20}}},
		{name: "spikes at most a block apart", phases: []phase{
			{40, 1, 0}, {40, 1, 40},
			{1, b - 1, 40}, {40, 1, 40},
			{1, b - 1, 40}, {40, 1, 40},
			{1, b - 1, 40},
		}},
		{name: "burst over twice the recent need", phases: []phase{{20, 1, 0}, {20, 10, 20}, {41, 1, 0}, {1, 3, 1}}},
		{name: "burst within twice the recent need, then trickle", phases: []phase{
			{20, 1, 0}, {20, 10, 20}, {40, 1, 40},
			// The burst is drain 12, in the block of drains 1 to b; drain
			// 2b+1 is the first whose last two blocks do not hold it.
			{1, 2*b - 12, 40}, {1, 1, 0}, {1, 2, 1},
		}},
		{name: "empty polls are not drains", phases: []phase{{20, 1, 0}, {20, 1, 20}, {40, 1, 40}, {0, 3 * b, 40}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			f.SetKeepSlots(keep)
			done, cancel := context.WithCancel(t.Context())
			cancel()
			next, drain := 0, 0
			for _, ph := range tt.phases {
				for range ph.drains {
					drain++
					for range ph.keys {
						if err := f.Add(th("k"+strconv.Itoa(next%1000), drain)); err != nil {
							t.Fatal(err)
						}
						next++
					}
					popped := 0
					for f.Len() > 0 {
						if err := f.PopBatch(t.Context(), 16, func(items []deltafifo.Item[thing]) error {
							popped += len(items)
							return nil
						}); err != nil {
							t.Fatal(err)
						}
					}
					if popped != ph.keys {
						t.Fatalf("drain %d: popped %d keys, want %d", drain, popped, ph.keys)
					}
					if err := f.Pop(done, nil); err != context.Canceled {
						t.Fatalf("drain %d: Pop(done context) = %v, want %v", drain, err, context.Canceled)
					}
					if got := f.Slots(); got != ph.want {
						t.Fatalf("drain %d (%d keys): Slots() = %d, want %d", drain, ph.keys, got, ph.want)
					}
				}
			}
			if err := f.CheckInvariants(); err != nil {
				t.Fatalf("CheckInvariants() = %v", err)
			}
		})
	}
}
