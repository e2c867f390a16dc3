package reflector_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/reflector"
)

// countResyncs returns how many Resync calls store has seen.
func countResyncs(store *recStore) int {
	n := 0
	for _, op := range store.Ops() {
		if op == "Resync" {
			n++
		}
	}
	return n
}

// resyncsAt samples countResyncs at each of the given times since start.
func resyncsAt(store *recStore, start time.Time, at ...time.Duration) []int {
	var got []int
	for _, d := range at {
		time.Sleep(d - time.Since(start))
		synctest.Wait()
		got = append(got, countResyncs(store))
	}
	return got
}

func TestResync(t *testing.T) {
	sec := time.Second
	for _, tc := range []struct {
		name     string
		period   time.Duration
		should   []bool // ShouldResync's answers in turn; nil for no hook
		watches  []watchReply
		backoff  reflector.Backoff
		expireAt time.Duration // when > 0, the first watch expires then
		at       []time.Duration
		want     []int
		wantAsks int
	}{
		{
			name:   "every period, the timer restarting after each tick",
			period: time.Minute,
			at:     []time.Duration{59 * sec, 60 * sec, 119 * sec, 120 * sec, 180 * sec},
			want:   []int{0, 1, 1, 2, 3},
		},
		{
			name:   "never with a zero period",
			period: 0,
			at:     []time.Duration{time.Hour},
			want:   []int{0},
		},
		{
			name:     "only when ShouldResync says so, asked at every tick",
			period:   time.Minute,
			should:   []bool{false, true, false, true},
			at:       []time.Duration{60 * sec, 120 * sec, 180 * sec, 240 * sec},
			want:     []int{0, 1, 1, 2},
			wantAsks: 4,
		},
		{
			name:    "the timer runs through a failed watch's backoff",
			period:  time.Minute,
			watches: []watchReply{failedWatch(errBoom)},
			backoff: reflector.Backoff{Initial: 10 * time.Minute, Jitter: -1},
			at:      []time.Duration{60 * sec, 120 * sec, 9 * time.Minute},
			want:    []int{1, 2, 9},
		},
		{
			name:   "the timer starts again after a relist",
			period: time.Minute,
			watches: []watchReply{
				openWatch(added("b", "11")),
			},
			expireAt: 30 * sec,
			at:       []time.Duration{60 * sec, 89 * sec, 90 * sec, 150 * sec},
			want:     []int{0, 0, 1, 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(reflector.Capabilities{})
				lw.lists = []listReply{list("10", "a")}
				lw.watches = tc.watches
				store := &recStore{}
				opts := reflector.Options{ResyncPeriod: tc.period, Tuning: reflector.Tuning{Backoff: tc.backoff}}
				var mu sync.Mutex
				asks := 0
				if tc.should != nil {
					opts.ShouldResync = func() bool {
						mu.Lock()
						defer mu.Unlock()
						asks++
						return tc.should[(asks-1)%len(tc.should)]
					}
				}
				rn := start(t, lw, store, opts)
				if tc.expireAt > 0 {
					time.Sleep(tc.expireAt)
					lw.watch(t, 0).send(t, errorEvent(errGone))
				}
				got := resyncsAt(store, lw.start, tc.at...)
				rn.stop()
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Resync calls at %v mismatch (-want +got):\n%s", tc.at, diff)
				}
				mu.Lock()
				defer mu.Unlock()
				if asks != tc.wantAsks {
					t.Errorf("ShouldResync asked %d times, want %d", asks, tc.wantAsks)
				}
			})
		})
	}
}

func TestResyncErrorRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{list("10", "a"), list("20", "a")}
		store := &recStore{fail: failOnce("Resync")}
		rn := start(t, lw, store, reflector.Options{ResyncPeriod: time.Minute})
		time.Sleep(time.Minute + 2*time.Second)
		synctest.Wait()
		rn.stop()
		wantCalls := []string{
			`List(rv="0" limit=0 continue="")`,
			`Watch(rv="10")`,
			`List(rv="10" limit=0 continue="")`,
			`Watch(rv="20")`,
		}
		if diff := cmp.Diff(wantCalls, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
		wantOps := []string{"Replace [a@10]@10", "Resync", "Replace [a@20]@20"}
		if diff := cmp.Diff(wantOps, store.Ops()); diff != "" {
			t.Errorf("store calls mismatch (-want +got):\n%s", diff)
		}
		if errs := rn.Errs(); len(errs) != 1 || !slices.ContainsFunc(errs, func(err error) bool { return matches(err, reflector.ErrStore) }) {
			t.Errorf("reported errors = %v, want one ErrStore", errs)
		}
	})
}
