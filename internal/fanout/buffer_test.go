package fanout_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/internal/fanout"
)

// A push to a full Block buffer waits until Run has delivered enough to
// make room, then completes; nothing is lost or reordered.
func TestBlockWaitsForRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(false)
		l := start(t, r, fanout.Options{Limit: 2, Overflow: fanout.Block})
		var ns []fanout.Notification[int]
		var want []string
		for i := range 5 {
			n := add(fmt.Sprint(i), i)
			ns = append(ns, n)
			want = append(want, format(&n))
		}
		pushed := pushAsync(l, ns...)
		synctest.Wait()
		// Run holds two, the first in delivery; the push waits.
		if closed(pushed) {
			t.Fatal("Push to a full Block buffer returned before any delivery")
		}
		if s := l.Stats(); s.Pending != 2 || s.BlockedPushes == 0 {
			t.Errorf("Stats() = %+v, want Pending 2 and BlockedPushes > 0", s)
		}
		r.open()
		synctest.Wait()
		if !closed(pushed) {
			t.Error("Push still waits after every delivery")
		}
		if diff := cmp.Diff(want, r.take()); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
		if s := l.Stats(); s.Pending != 0 || s.Delivered != 5 {
			t.Errorf("Stats() = %+v, want nothing pending and 5 delivered", s)
		}
	})
}

// Stop drops what is pending, releases a push waiting in a full Block
// buffer, refuses later pushes, and ends Run once the delivery in
// progress returns.
func TestStopDropsPendingAndReleasesPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(false)
		l := start(t, r, fanout.Options{Limit: 1, Overflow: fanout.Block})
		pushed := pushAsync(l, add("a", 1), add("b", 1), add("c", 1))
		synctest.Wait()
		if closed(pushed) {
			t.Fatal("Push to a full Block buffer returned before any delivery")
		}
		l.Stop()
		synctest.Wait()
		if !closed(pushed) {
			t.Error("Push still waits after Stop")
		}
		if closed(l.Done()) {
			t.Error("Done closed while a delivery is in progress")
		}
		l.Push([]fanout.Notification[int]{add("d", 1)})
		r.open()
		synctest.Wait()
		if !closed(l.Done()) {
			t.Error("Done not closed once the delivery in progress returned")
		}
		if diff := cmp.Diff([]string{"add a 1"}, r.take()); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
		if s := l.Stats(); s.Pending != 0 || s.Delivered != 1 {
			t.Errorf("Stats() = %+v, want nothing pending and 1 delivered", s)
		}
	})
}

// Past its limit, a Coalesce buffer never makes a push wait: it merges
// each notification with the one pending for its key, keeping per-key
// order and the place of the first notification each merged one absorbed.
func TestCoalesceMergesByKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(false)
		l := start(t, r, fanout.Options{Limit: 1, Overflow: fanout.Coalesce})
		l.Push([]fanout.Notification[int]{add("a", 1)})
		synctest.Wait() // Run delivers a, and waits at the gate
		// Each push returns at once: were one to wait, the bubble would
		// deadlock and the test fail.
		for _, n := range []fanout.Notification[int]{
			update("a", 1, 2),
			add("b", 1),
			update("a", 2, 3),
			update("b", 1, 2), // b is still an add, of the new state
			add("c", 1),
			del("c", 1), // c's add and deletion cancel out
			del("a", 3), // a's updates and deletion: a deletion of the state known
			update("d", 0, 1),
			del("d", 1),
			add("d", 2), // d's deletion and re-creation: an update
		} {
			l.Push([]fanout.Notification[int]{n})
		}
		if s := l.Stats(); s.Pending != 4 || s.Coalesced != 6 || s.BlockedPushes != 0 {
			t.Errorf("Stats() = %+v, want Pending 4 (one delivering, a, b, d), Coalesced 6, no blocked push", s)
		}
		r.open()
		synctest.Wait()
		want := []string{"add a 1", "delete a 3 (known 1)", "add b 2", "update d 0->2"}
		if diff := cmp.Diff(want, r.take()); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
	})
}

// An unbounded buffer grows to hold every push, across many segments,
// and so does a bounded one for PushUnbounded; neither waits.
func TestUnboundedGrows(t *testing.T) {
	const n = 1000
	tests := []struct {
		name      string
		opts      fanout.Options
		unbounded bool
	}{
		{"unbounded buffer", fanout.Options{}, false},
		{"Block buffer, PushUnbounded", fanout.Options{Limit: 1, Overflow: fanout.Block}, true},
		{"Coalesce buffer, PushUnbounded", fanout.Options{Limit: 1, Overflow: fanout.Coalesce}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newReceiver(false)
				l := start(t, r, tt.opts)
				var want []string
				ns := make([]fanout.Notification[int], 0, n)
				for i := range n {
					// One key: a Coalesce overflow would merge these.
					ns = append(ns, update("k", i, i+1))
					want = append(want, format(&ns[i]))
				}
				if tt.unbounded {
					l.PushUnbounded(ns)
				} else {
					for i := range ns {
						l.Push(ns[i : i+1])
					}
				}
				synctest.Wait()
				if s := l.Stats(); s.Pending != n || s.Coalesced != 0 || s.BlockedPushes != 0 {
					t.Errorf("Stats() = %+v, want Pending %d, nothing coalesced or blocked", s, n)
				}
				r.open()
				synctest.Wait()
				if diff := cmp.Diff(want, r.take()); diff != "" {
					t.Errorf("delivered mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestMayBlock(t *testing.T) {
	tests := []struct {
		opts fanout.Options
		want bool
	}{
		{fanout.Options{}, false},
		{fanout.Options{Overflow: fanout.Coalesce}, false},
		{fanout.Options{Limit: -1, Overflow: fanout.Block}, false},
		{fanout.Options{Limit: 3, Overflow: fanout.Block}, true},
		{fanout.Options{Limit: 3, Overflow: fanout.Coalesce}, false},
	}
	for _, tt := range tests {
		l := fanout.NewListener(func(*fanout.Notification[int]) {}, func(fanout.Panic) {}, tt.opts)
		if got := l.MayBlock(); got != tt.want {
			t.Errorf("NewListener(%+v).MayBlock() = %t, want %t", tt.opts, got, tt.want)
		}
	}
}
