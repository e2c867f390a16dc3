package informer_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// A change that arrives while its object is being processed waits until
// that processing finishes and is then queued at the end: it follows a
// later change of another object (see Order in the package doc). The
// Block buffer keeps the reflector from applying events itself, so that
// every event goes through the DeltaFIFO.
func TestChangeDuringProcessingIsQueuedAtTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 0), newObj("b", 0))
		hold := make(chan struct{})
		opts := quiet(t)
		// The processing goroutine waits while it indexes a at value 1.
		opts.Indexers = indexer.Indexers[*obj]{"value": func(o *obj) ([]string, error) {
			if o.Name == "a" && o.Value == 1 {
				<-hold
			}
			return []string{fmt.Sprint(o.Value)}, nil
		}}
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{Buffer: informer.BufferOptions{Size: 1, Overflow: informer.Block}})
		defer start(t, inf)()
		synctest.Wait()
		rec.take()

		update(t, src, "a", 1)
		synctest.Wait() // a@1 is being processed
		update(t, src, "a", 2)
		update(t, src, "b", 1)
		synctest.Wait()
		close(hold)
		synctest.Wait()

		want := []string{"update ns/a v0->v1", "update ns/b v0->v1", "update ns/a v1->v2"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("notifications mismatch (-want +got):\n%s", diff)
		}
	})
}
