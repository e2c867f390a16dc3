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
