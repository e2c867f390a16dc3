package informer_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
)

// An object of the initial list that is deleted and created again while
// its initial-list delta is still queued is added twice: first as part of
// the initial list, then, after its deletion, as a new object that is not.
// (Found by the differential test against client-go in bench/informer.)
func TestRecreatedObjectIsNotInInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 1000 objects fill the first batch the informer pops; "z" is left
		// for the second, so its deltas stay queued while the gate holds the
		// first batch inside an index function. The handler's Block buffer
		// sends the list through the FIFO (a list the reflector applies
		// itself is in the cache before the watch starts).
		objs := append(numbered("a", 1000), newObj("z", 1))
		src := newSource(t, memsource.Options[*obj]{}, objs...)

		opts := quiet(t)
		var gate chan struct{}
		opts.Indexers, gate = holdAt("a0000")
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 5000, Overflow: informer.Block}})
		defer start(t, inf)()
		synctest.Wait() // the first batch is held at the gate

		if _, err := src.Delete(keys.Join("ns", "z")); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Create(newObj("z", 2)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // both watch events are queued behind z's initial delta
		if q := inf.Stats().Queued; q != 1 {
			t.Fatalf("Stats().Queued = %d while the first batch is held, want 1: ns/z", q)
		}
		close(gate)
		synctest.Wait()

		var got []string
		for _, e := range rec.take() {
			if strings.Contains(e, "ns/z") {
				got = append(got, e)
			}
		}
		want := []string{"add ns/z v1 initial=true", "delete ns/z v1", "add ns/z v2 initial=false"}
		if !slices.Equal(got, want) {
			t.Errorf("notifications for ns/z = %q, want %q", got, want)
		}
	})
}
