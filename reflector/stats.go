package reflector

import (
	"errors"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a reflector's activity since New, for metrics:
// Reflector.Stats returns it, and the informer package adds it to its
// own.
type Stats struct {
	// Lists counts the times the reflector began to fill the store: the
	// first list and every relist, each counted once whether it streams,
	// pages, or falls back from a streaming list to a list.
	Lists uint64
	// Watches counts every watch the reflector asked the source for,
	// failed ones included: each watch after a list, and the watch of each
	// streaming list (which Lists counts too), whose events and bookmarks
	// after the initial ones are the watch's.
	Watches uint64
	// Relists counts the relists by reason.
	Relists RelistCounts
	// WatchErrors counts the watches that failed to start or ended with an
	// error (expired, short, or failed), not counting the ends caused by
	// the store or by Run's context, nor a streaming list's watch that
	// fails before the end of its initial events (the reflector lists
	// instead, and Lists counts that attempt once).
	WatchErrors uint64
	// Resyncs counts the calls to Store.Resync.
	Resyncs uint64
	// Events counts the watch events the reflector applied to the store,
	// by type; malformed events and a streaming list's initial events are
	// not counted.
	Events EventCounts
	// LastList is when the last successful list filled the store; zero
	// before the first.
	LastList time.Time
	// LastEvent is when the reflector last applied a watch event,
	// bookmarks included, to within the interval between two calls of
	// Stats: so that the event path never reads the clock, Stats reads it
	// when it finds that events arrived since its previous call, and
	// reports that time. LastEvent is therefore never before the true
	// time, and at most one such interval after it. It is zero until a
	// call of Stats has seen an event.
	LastEvent time.Time
}

// RelistCounts counts relists by reason.
type RelistCounts struct {
	// Expired counts the relists made because the version the reflector
	// watched or listed from expired.
	Expired uint64
	// Failed counts the relists made after a failure of a list or of
	// the store. A failed watch is retried, after a backoff, from the
	// last version; it leads to a relist only through an expiry.
	Failed uint64
}

// EventCounts counts watch events by type.
type EventCounts struct {
	Added, Updated, Deleted, Bookmarks uint64
}

// counters are the running totals behind Stats, written by Run's
// goroutine and read by Stats.
type counters struct {
	lists, watches, watchErrors, resyncs atomic.Uint64
	relistsExpired, relistsFailed        atomic.Uint64
	events                               [Bookmark + 1]atomic.Uint64 // by EventType
	lastList                             atomic.Int64                // Unix nanoseconds; 0 before the first
}

// Stats returns a snapshot of the reflector's counters. It is safe for
// simultaneous use with Run and with other calls of Stats.
func (r *Reflector[T]) Stats() Stats {
	c := &r.counters
	s := Stats{
		Lists:       c.lists.Load(),
		Watches:     c.watches.Load(),
		Relists:     RelistCounts{Expired: c.relistsExpired.Load(), Failed: c.relistsFailed.Load()},
		WatchErrors: c.watchErrors.Load(),
		Resyncs:     c.resyncs.Load(),
		Events: EventCounts{
			Added:     c.events[Added].Load(),
			Updated:   c.events[Updated].Load(),
			Deleted:   c.events[Deleted].Load(),
			Bookmarks: c.events[Bookmark].Load(),
		},
	}
	if ns := c.lastList.Load(); ns != 0 {
		s.LastList = time.Unix(0, ns)
	}
	e := s.Events
	total := e.Added + e.Updated + e.Deleted + e.Bookmarks
	r.mu.Lock()
	if total != r.seenEvents {
		r.seenEvents, r.lastEvent = total, time.Now()
	}
	s.LastEvent = r.lastEvent
	r.mu.Unlock()
	return s
}

// countRelist counts the relist that next calls for.
func (c *counters) countRelist(next relist) {
	if !next.afterBackoff || errors.Is(next.cause, ErrExpired) {
		c.relistsExpired.Add(1)
		return
	}
	c.relistsFailed.Add(1)
}

// countWatchEnd counts err, how a watch failed to start or ended, when it
// is a failure of the watch itself.
func (c *counters) countWatchEnd(err error) {
	if err != nil && !errors.Is(err, ErrStore) {
		c.watchErrors.Add(1)
	}
}
