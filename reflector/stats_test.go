package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/reflector"
)

func TestStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start0 := time.Now()
		lw := newLW(reflector.Capabilities{Bookmarks: true})
		lw.lists = []listReply{list("10", "a", "b"), list("20", "a")}
		lw.watches = []watchReply{
			openWatch(added("c", "11"), modified("a", "12"), bookmark("13"), errorEvent(reflector.ErrExpired)),
			failedWatch(errBoom),
			openWatch(deleted("a", "21")),
		}
		rn := start(t, lw, &recStore{}, reflector.Options{ResyncPeriod: 10 * time.Minute})
		defer rn.stop()
		time.Sleep(15 * time.Minute) // past the backoff and one resync
		synctest.Wait()

		got := rn.r.Stats()
		want := reflector.Stats{
			Lists:       2,
			Watches:     3,
			Relists:     reflector.RelistCounts{Expired: 1},
			WatchErrors: 2, // the expiry and errBoom
			Resyncs:     1,
			Events:      reflector.EventCounts{Added: 1, Updated: 1, Deleted: 1, Bookmarks: 1},
			LastList:    start0,
			LastEvent:   time.Now(), // the first call of Stats that saw the events
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
		}

		time.Sleep(5 * time.Minute)
		if got := time.Since(rn.r.Stats().LastEvent); got != 5*time.Minute {
			t.Errorf("time since LastEvent after 5 quiet minutes = %v, want 5m", got)
		}
	})
}

func TestStatsCountsFailedListsAsRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{{err: errBoom}, list("10", "a")}
		rn := start(t, lw, &recStore{}, reflector.Options{})
		defer rn.stop()
		time.Sleep(time.Minute)
		synctest.Wait()
		got := rn.r.Stats()
		want := reflector.Stats{Lists: 2, Watches: 1, Relists: reflector.RelistCounts{Failed: 1}, LastList: got.LastList}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
		}
		if got.LastList.IsZero() {
			t.Errorf("Stats().LastList is zero after a successful list")
		}
	})
}

// Watches counts every watch the reflector asks the source for, the watch
// of a streaming list included, which then delivers the events and
// bookmarks after the list.
func TestStatsCountsStreamingWatches(t *testing.T) {
	tests := []struct {
		name    string
		lists   []listReply
		watches []watchReply
		want    reflector.Stats
	}{
		{
			name:    "a streaming list whose watch goes on",
			watches: []watchReply{openWatch(added("a", "5"), endBookmark("9"), modified("a", "10"), bookmark("11"))},
			want: reflector.Stats{Lists: 1, Watches: 1,
				Events: reflector.EventCounts{Updated: 1, Bookmarks: 1}},
		},
		{
			name:    "a failed streaming watch, then a list and its watch",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{failedWatch(errBoom), openWatch(modified("a", "11"))},
			want: reflector.Stats{Lists: 1, Watches: 2,
				Events: reflector.EventCounts{Updated: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(streaming)
				lw.lists, lw.watches = tt.lists, tt.watches
				rn := start(t, lw, &recStore{}, reflector.Options{})
				defer rn.stop()
				synctest.Wait()
				got := rn.r.Stats()
				tt.want.LastList, tt.want.LastEvent = got.LastList, got.LastEvent
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}
