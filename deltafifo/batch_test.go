package deltafifo_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
)

// Anchor (b) 16: client-go's batch pop stops at the first duplicate key,
// at the batch size, at the end of the initial population, at a
// non-batchable delta, and at a key error. Here a key has one queue entry
// and keys being processed are not ready, so no batch can hold a key twice
// or a key another processor holds; every delta type is batchable; and key
// errors happen in Add, never at pop time (TestKeyErrorQueuesNothing).

// popBatch pops one batch of at most n keys and returns what the processor
// got.
func popBatch(t *testing.T, f *deltafifo.DeltaFIFO[thing], n int) []popped {
	t.Helper()
	var got []popped
	err := f.PopBatch(t.Context(), n, func(items []deltafifo.Item[thing]) error {
		for _, it := range items {
			got = append(got, popped{it.Key, slices.Clone(it.Deltas), it.InInitialList})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("PopBatch(%d) = %v", n, err)
	}
	return got
}

func keysOf(ps []popped) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Key
	}
	return out
}

func TestPopBatchStopsAtSize(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	for _, o := range []op{opAdd("a", 1), opAdd("b", 1), opUpdate("a", 2), opAdd("c", 1), opAdd("d", 1)} {
		o(t, f)
	}
	want := []popped{
		{"a", ds(added("a", 1), updated("a", 2)), false},
		{"b", ds(added("b", 1)), false},
		{"c", ds(added("c", 1)), false},
	}
	diffPopped(t, "PopBatch(3)", want, popBatch(t, f, 3))
	diffPopped(t, "PopBatch(3) again", []popped{{"d", ds(added("d", 1)), false}}, popBatch(t, f, 3))
	mustCheck(t, f)
}

func TestPopBatchStopsAtEndOfInitialList(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: newKnown(th("gone", 1))})
	for _, o := range []op{opReplace(th("a", 1), th("b", 1)), opAdd("c", 1), opAdd("a", 2)} {
		o(t, f)
	}
	got := popBatch(t, f, 10)
	want := []popped{
		{"a", ds(replaced("a", 1), added("a", 2)), true},
		{"b", ds(replaced("b", 1)), true},
		{"gone", ds(inferred("gone", 1)), true},
	}
	diffPopped(t, "first PopBatch(10)", want, got)
	if !f.HasSynced() {
		t.Error("HasSynced() = false after the initial batch was processed")
	}
	diffPopped(t, "second PopBatch(10)", []popped{{"c", ds(added("c", 1)), false}}, popBatch(t, f, 10))
}

func TestPopBatchSkipsKeysInFlight(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	for _, o := range []op{opAdd("a", 1), opAdd("b", 1)} {
		o(t, f)
	}
	var inner []popped
	err := f.PopBatch(t.Context(), 1, func(items []deltafifo.Item[thing]) error {
		// a is being processed: new deltas for it wait, and a second batch
		// takes only b.
		opUpdate("a", 2)(t, f)
		opAdd("c", 1)(t, f)
		inner = popBatch(t, f, 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "c"}, keysOf(inner)); diff != "" {
		t.Errorf("keys of the inner batch mismatch (-want +got):\n%s", diff)
	}
	diffPopped(t, "PopBatch after the outer batch", []popped{{"a", ds(updated("a", 2)), false}}, popBatch(t, f, 10))
	mustCheck(t, f)
}

func TestPopBatchRequeue(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	for _, o := range []op{opAdd("a", 1), opAdd("b", 1), opAdd("c", 1)} {
		o(t, f)
	}
	err := f.PopBatch(t.Context(), 2, func(items []deltafifo.Item[thing]) error {
		opUpdate("b", 2)(t, f)
		return deltafifo.ErrRequeue
	})
	if !errors.Is(err, deltafifo.ErrRequeue) {
		t.Fatalf("PopBatch() = %v, want %v", err, deltafifo.ErrRequeue)
	}
	mustCheck(t, f)
	want := []popped{
		{"c", ds(added("c", 1)), false},
		{"a", ds(added("a", 1)), false},
		{"b", ds(added("b", 1), updated("b", 2)), false},
	}
	diffPopped(t, "PopBatch after requeue", want, popBatch(t, f, 10))
}

func TestPopBatchRejectsBadSize(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	for _, n := range []int{0, -1} {
		err := f.PopBatch(t.Context(), n, func([]deltafifo.Item[thing]) error {
			t.Errorf("processor called for batch size %d", n)
			return nil
		})
		if err == nil {
			t.Errorf("PopBatch(%d) = nil, want an error", n)
		}
	}
}

func TestPopBatchReusesMemory(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	objs := make([]thing, 100)
	for i := range objs {
		objs[i] = th(string(rune('A'+i%50))+string(rune('a'+i/50)), i)
	}
	process := func(items []deltafifo.Item[thing]) error { return nil }
	cycle := func() {
		for _, o := range objs {
			if err := f.Update(o); err != nil {
				t.Fatal(err)
			}
		}
		for f.Len() > 0 {
			if err := f.PopBatch(t.Context(), 32, process); err != nil {
				t.Fatal(err)
			}
		}
	}
	cycle()
	// The keys are computed by thingKey without allocating, so a warm FIFO
	// allocates nothing for a whole cycle of updates and batch pops.
	if allocs := testing.AllocsPerRun(10, cycle); allocs != 0 {
		t.Errorf("a warm Update+PopBatch cycle of %d keys allocates %v times, want 0", len(objs), allocs)
	}
}

func TestPopBatchWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		ctx, cancel := context.WithCancel(t.Context())
		var keys []string
		errc := make(chan error, 2)
		batchOnce := func(ctx context.Context) {
			errc <- f.PopBatch(ctx, 10, func(items []deltafifo.Item[thing]) error {
				for _, it := range items {
					keys = append(keys, it.Key)
				}
				return nil
			})
		}
		go batchOnce(t.Context())
		synctest.Wait()
		if len(errc) != 0 {
			t.Fatalf("PopBatch returned %v on an empty FIFO", <-errc)
		}
		opReplace(th("a", 1), th("b", 1))(t, f) // both ready at once
		synctest.Wait()
		if err := <-errc; err != nil {
			t.Fatalf("PopBatch() = %v", err)
		}
		if diff := cmp.Diff([]string{"a", "b"}, keys); diff != "" {
			t.Errorf("batch keys mismatch (-want +got):\n%s", diff)
		}

		go batchOnce(ctx)
		synctest.Wait()
		cancel()
		synctest.Wait()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("PopBatch() after cancel = %v, want %v", err, context.Canceled)
		}
	})
}
