package informer_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

func TestMetricsStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start0 := time.Now()
		src := newSource(t, memsource.Options[*obj]{DisableStreamingList: true, BookmarkInterval: time.Hour}, newObj("a", 1), newObj("b", 1))
		opts := quiet(t)
		opts.Name = "objs"
		var name string
		var stats func() informer.Stats
		opts.Metrics = func(n string, s func() informer.Stats) { name, stats = n, s }
		inf := informer.New(src, opts)
		if name != "objs" {
			t.Errorf("Metrics got name %q, want objs", name)
		}
		mustAdd(t, inf, newRecorder(), informer.HandlerOptions{Name: "rec"})
		panicky := informer.HandlerFuncs[*obj]{UpdateFunc: func(_, _ *obj) { panic("boom") }}
		gone := mustAdd(t, inf, panicky, informer.HandlerOptions{Name: "panicky"})
		mustAdd(t, inf, newRecorder(), informer.HandlerOptions{Name: "other"})
		start(t, inf)
		synctest.Wait()

		update(t, src, "a", 2)
		create(t, src, "c", 1)
		remove(t, src, "b")
		synctest.Wait()
		if err := inf.RemoveEventHandler(gone); err != nil {
			t.Fatal(err)
		}
		mustAdd(t, inf, newRecorder(), informer.HandlerOptions{Name: "late"}) // gets the replay of a and c
		synctest.Wait()

		want := informer.Stats{
			Cached: 2,
			Reflector: reflector.Stats{
				Lists:     1,
				Watches:   1,
				Events:    reflector.EventCounts{Added: 1, Updated: 1, Deleted: 1},
				LastList:  start0,
				LastEvent: time.Now(),
			},
			Handlers: []informer.NamedHandlerStats{
				{Name: "rec", HandlerStats: informer.HandlerStats{Delivered: 5}},
				{Name: "other", HandlerStats: informer.HandlerStats{Delivered: 5}},
				{Name: "late", HandlerStats: informer.HandlerStats{Delivered: 2}},
			},
		}
		if diff := cmp.Diff(want, stats()); diff != "" {
			t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
		}
		if got := gone.Stats(); got != (informer.HandlerStats{Delivered: 5, Panics: 1}) {
			t.Errorf("Stats() of the removed handler = %+v, want 5 delivered, 1 panic", got)
		}
	})
}

func TestFactoryMetrics(t *testing.T) {
	var names []string
	f := informer.NewFactory(informer.FactoryOptions{Metrics: func(n string, _ func() informer.Stats) { names = append(names, n) }})
	defer f.Shutdown()
	informer.ForWithOptions(f, memsource.New(memsource.Options[*obj]{}), informer.Options[*obj]{Name: "first"})
	own := func(string, func() informer.Stats) {}
	informer.ForWithOptions(f, memsource.New(memsource.Options[*obj]{}), informer.Options[*obj]{Name: "own", Metrics: own})
	if diff := cmp.Diff([]string{"first"}, names); diff != "" {
		t.Errorf("informers given to FactoryOptions.Metrics mismatch (-want +got):\n%s", diff)
	}
}
