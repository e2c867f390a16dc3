package integrationtest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// TestCreateDeleteDuringRelistIsNeverNotified pins the semantics behind
// the samplecontroller's "child never recreated" failure: an object
// created and deleted while the reflector is not watching (a failed watch
// in backoff, then a compaction that makes it relist) is in no watch
// stream and in no list, so no handler ever hears of it, as with client-go
// against an API server. The cache and every handler still equal the
// source; a controller that created such an object learns of its loss only
// from a resync of its parent (or a requeue of its own).
func TestCreateDeleteDuringRelistIsNeverNotified(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(describe("streaming=%v", streaming), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(memsource.Options[*thing]{DisableStreamingList: !streaming})
				if _, err := src.Create(&thing{Namespace: "ns", Name: "parent-child-0", Owner: "parent"}); err != nil {
					t.Fatalf("Create: %v", err)
				}
				inf := informer.New[*thing](src, informer.Options[*thing]{
					Reflector: reflector.Tuning{
						Backoff: reflector.Backoff{Initial: time.Second, Max: time.Second, Jitter: 0.1},
					},
					Logger:       slog.New(slog.DiscardHandler),
					ErrorHandler: faultsExpected(t),
				})
				v := newView(t, "handler")
				if _, err := inf.AddEventHandler(v); err != nil {
					t.Fatalf("AddEventHandler: %v", err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() { _ = inf.Run(ctx) })
				defer wg.Wait()
				defer cancel()
				synctest.Wait()

				// The watch fails and the reflector backs off; meanwhile the
				// child is deleted, re-created by its controller, deleted
				// again, and the history compacted.
				src.SetFaults(memsource.Faults{FailWatches: 1})
				src.CloseWatches()
				synctest.Wait()
				for _, step := range []func() error{
					func() error { _, err := src.Delete("ns/parent-child-0"); return err },
					func() error {
						_, err := src.Create(&thing{Namespace: "ns", Name: "parent-child-0", Owner: "parent"})
						return err
					},
					func() error { _, err := src.Delete("ns/parent-child-0"); return err },
				} {
					if err := step(); err != nil {
						t.Fatalf("write: %v", err)
					}
				}
				src.Compact()
				time.Sleep(time.Minute)
				synctest.Wait()

				want := sourceVersions(t, src)
				if diff := cmp.Diff(want, v.snapshot()); diff != "" {
					t.Errorf("handler view mismatch with the source (-want +got):\n%s", diff)
				}
				v.mu.Lock()
				defer v.mu.Unlock()
				// One add (the initial list), one inferred deletion, and
				// nothing for the re-created child.
				if v.adds != 1 || v.updates != 0 || v.deletes != 1 {
					t.Errorf("notifications: %d adds, %d updates, %d deletes; want 1, 0, 1", v.adds, v.updates, v.deletes)
				}
			})
		})
	}
}
