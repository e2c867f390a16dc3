package informer_test

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

func TestInformerDeliversListAndWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		reg, err := inf.AddEventHandler(rec)
		if err != nil {
			t.Fatal(err)
		}
		start(t, inf)
		synctest.Wait()
		if !inf.HasSynced() || !reg.HasSynced() {
			t.Fatalf("HasSynced() = %t, registration %t; want both true", inf.HasSynced(), reg.HasSynced())
		}
		want := []string{"add ns/a v1 initial=true", "add ns/b v2 initial=true"}
		if diff := cmp.Diff(want, sorted(rec.take())); diff != "" {
			t.Errorf("initial events mismatch (-want +got):\n%s", diff)
		}

		a, _ := src.Get("ns/a")
		up := *a
		up.Value = 10
		if _, err := src.Update(&up); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Delete("ns/b"); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Create(newObj("c", 3)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want = []string{"update ns/a v1->v10", "delete ns/b v2", "add ns/c v3 initial=false"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("watch events mismatch (-want +got):\n%s", diff)
		}
		got := valuesOf(slices.Values(inf.Lister().List()))
		if diff := cmp.Diff(map[string]int{"ns/a": 10, "ns/c": 3}, got); diff != "" {
			t.Errorf("Lister().List() mismatch (-want +got):\n%s", diff)
		}
		if got, want := inf.LastSyncResourceVersion(), src.ResourceVersion(); got != want {
			t.Errorf("LastSyncResourceVersion() = %q, want %q", got, want)
		}
	})
}

// An empty source syncs at once: there is nothing to pop.
func TestEmptySourceSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := informer.New(newSource(t, memsource.Options[*obj]{DisableStreamingList: true}), quiet(t))
		reg := mustAdd(t, inf, newRecorder(), informer.HandlerOptions{})
		start(t, inf)
		if err := informer.WaitForCacheSync(t.Context(), inf, reg); err != nil {
			t.Fatalf("WaitForCacheSync() = %v", err)
		}
		if got := inf.LastSyncResourceVersion(); got != "1" {
			t.Errorf("LastSyncResourceVersion() = %q, want 1", got)
		}
	})
}
