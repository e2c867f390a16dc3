package fanout_test

import (
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/internal/fanout"
)

// Synced is closed once MarkUpstreamSynced was called and every initial
// add pushed before it has been delivered or merged away.
func TestSyncTracksInitialAdds(t *testing.T) {
	tests := []struct {
		name string
		opts fanout.Options
		// pushed before and after MarkUpstreamSynced, while the first
		// delivery waits
		before, after []fanout.Notification[int]
	}{
		{name: "nothing pushed", opts: fanout.Options{}},
		{name: "initial adds before the mark", before: []fanout.Notification[int]{initialAdd("a", 1), initialAdd("b", 1)}},
		{name: "later changes do not count", before: []fanout.Notification[int]{initialAdd("a", 1)}, after: []fanout.Notification[int]{add("b", 1)}},
		{
			name:   "an initial add merged away by its deletion counts",
			opts:   fanout.Options{Limit: 1, Overflow: fanout.Coalesce},
			before: []fanout.Notification[int]{initialAdd("a", 1), initialAdd("b", 1), del("b", 1)},
		},
		{
			name:   "an initial re-creation merged into an update counts",
			opts:   fanout.Options{Limit: 1, Overflow: fanout.Coalesce},
			before: []fanout.Notification[int]{initialAdd("a", 1), update("b", 0, 1), del("b", 1), initialAdd("b", 2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newReceiver(false)
				l := start(t, r, tt.opts)
				for i := range tt.before {
					l.Push(tt.before[i : i+1])
				}
				synctest.Wait()
				if closed(l.Synced()) {
					t.Fatal("Synced closed before MarkUpstreamSynced")
				}
				l.MarkUpstreamSynced()
				for i := range tt.after {
					l.Push(tt.after[i : i+1])
				}
				synctest.Wait()
				initial := false
				for _, n := range append(tt.before, tt.after...) {
					initial = initial || n.Initial
				}
				if closed(l.Synced()) == initial {
					t.Errorf("Synced closed: %t, with an initial add waiting at the gate: %t", closed(l.Synced()), initial)
				}
				r.open()
				synctest.Wait()
				if !closed(l.Synced()) {
					t.Errorf("Synced not closed after every delivery; Stats() = %+v", l.Stats())
				}
			})
		})
	}
}

// A listener stopped before the initial list was all pushed dropped the
// rest: marking it synced afterwards does not close Synced.
func TestStoppedListenerNeverSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := start(t, newReceiver(true), fanout.Options{})
		l.Push([]fanout.Notification[int]{initialAdd("a", 1)})
		synctest.Wait()
		l.Stop()
		l.Push([]fanout.Notification[int]{initialAdd("b", 1)}) // dropped
		l.MarkUpstreamSynced()
		synctest.Wait()
		if closed(l.Synced()) {
			t.Error("Synced closed for a listener stopped before the initial list ended")
		}
	})
}
