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
		itemOf := func(_ string, o *obj) (string, bool) { return o.Name, o.Name != "skipped" }
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
		mustAdd(t, inf, informer.PriorityEnqueue(q, func(_ string, o *obj) (string, bool) { return o.Name, true }), informer.HandlerOptions{})
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

// PriorityEnqueue gives itemOf the key of every notification, so that a
// deletion with no known state (Object the zero value) is still queued.
func TestPriorityEnqueueKeys(t *testing.T) {
	type call struct {
		Key    string
		Object string // the object's name, "<nil>" for the zero value
	}
	tests := []struct {
		name   string
		notify func(h informer.HandlerFuncs[*obj])
		want   []call
		adds   []string
	}{
		{
			name:   "add",
			notify: func(h informer.HandlerFuncs[*obj]) { h.OnAdd(newObj("a", 1), false) },
			want:   []call{{"ns/a", "a"}},
			adds:   []string{"ns/a@normal"},
		},
		{
			name:   "update",
			notify: func(h informer.HandlerFuncs[*obj]) { h.OnUpdate(newObj("a", 1), newObj("a", 2)) },
			want:   []call{{"ns/a", "a"}},
			adds:   []string{"ns/a@normal"},
		},
		{
			name: "deletion with its last state",
			notify: func(h informer.HandlerFuncs[*obj]) {
				h.OnDelete(informer.Deleted[*obj]{Key: "ns/a", Object: newObj("a", 1)})
			},
			want: []call{{"ns/a", "a"}},
			adds: []string{"ns/a@normal"},
		},
		{
			name: "deletion with no known state: queued from its key",
			notify: func(h informer.HandlerFuncs[*obj]) {
				h.OnDelete(informer.Deleted[*obj]{Key: "ns/gone", Inferred: true})
			},
			want: []call{{"ns/gone", "<nil>"}},
			adds: []string{"ns/gone@normal"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []call
			q := &adds{}
			tt.notify(informer.PriorityEnqueue(q, func(key string, o *obj) (string, bool) {
				name := "<nil>"
				if o != nil {
					name = o.Name
				}
				got = append(got, call{key, name})
				return key, true
			}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("itemOf calls mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.adds, q.take()); diff != "" {
				t.Errorf("adds mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
