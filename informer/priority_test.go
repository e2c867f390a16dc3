package informer_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// adds records the adds a PriorityEnqueue handler makes.
type adds struct {
	mu  sync.Mutex
	got []string
}

func (a *adds) AddWithOptions(item string, o queue.AddOptions) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := "normal"
	if o.Priority == queue.PriorityLow {
		p = "low"
	}
	a.got = append(a.got, item+"@"+p)
}

// take returns the adds so far, sorted, and forgets them.
func (a *adds) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := slices.Sorted(slices.Values(a.got))
	a.got = nil
	return got
}

// PriorityEnqueue adds the initial list and resyncs at PriorityLow, live
// changes at PriorityNormal, with a real informer and its resyncs.
func TestPriorityEnqueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 1), newObj("skipped", 1))
		opts := quiet(t)
		opts.ResyncPeriod = time.Minute
		inf := informer.New(src, opts)
		itemOf := func(o *obj) (string, bool) { return o.Name, o.Name != "skipped" }
		q := &adds{}
		mustAdd(t, inf, informer.PriorityEnqueue(q, itemOf), informer.HandlerOptions{})
		defer start(t, inf)()
		synctest.Wait()

		steps := []struct {
			name string
			do   func()
			want []string
		}{
			{"initial list", func() {}, []string{"a@low", "b@low"}},
			{"update", func() { update(t, src, "a", 2) }, []string{"a@normal"}},
			{"create", func() { create(t, src, "c", 1) }, []string{"c@normal"}},
			{"delete", func() { remove(t, src, "b") }, []string{"b@normal"}},
			{"resync", func() { time.Sleep(time.Minute) }, []string{"a@low", "c@low"}},
			{"handler added later: its replay", func() {
				mustAdd(t, inf, informer.PriorityEnqueue(q, itemOf), informer.HandlerOptions{ResyncPeriod: -1})
			}, []string{"a@low", "c@low"}},
		}
		for _, s := range steps {
			s.do()
			synctest.Wait()
			if diff := cmp.Diff(s.want, q.take()); diff != "" {
				t.Errorf("%s: adds mismatch (-want +got):\n%s", s.name, diff)
			}
		}
	})
}

// A PriorityEnqueue handler feeds a real priority queue: the live change
// comes out before the initial list.
func TestPriorityEnqueueQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 1))
		inf := informer.New(src, quiet(t))
		q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
		defer q.ShutDown()
		mustAdd(t, inf, informer.PriorityEnqueue(q, func(o *obj) (string, bool) { return o.Name, true }), informer.HandlerOptions{})
		defer start(t, inf)()
		synctest.Wait()
		create(t, src, "live", 1)
		synctest.Wait()
		var got []string
		for q.Len() > 0 {
			item, _ := q.Get(t.Context())
			got = append(got, item)
			q.Done(item)
		}
		if diff := cmp.Diff([]string{"live", "a", "b"}, got); diff != "" {
			t.Errorf("handed out mismatch (-want +got):\n%s", diff)
		}
	})
}
