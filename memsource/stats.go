package memsource

import "sync/atomic"

// Stats is a snapshot of a source's activity since New: what was written,
// what was asked, what was sent, and which faults fired. Tests use it to
// check that a fault they injected was exercised. The source's Len and
// ResourceVersion give its number of objects and its current version.
type Stats struct {
	// Creates, Updates and Deletes count successful writes.
	Creates, Updates, Deletes uint64
	// Lists and Watches count calls, failed ones included; each page of a
	// paginated list is a call.
	Lists, Watches uint64
	// ActiveWatches is the number of watches whose stream has not ended.
	ActiveWatches int
	// Events counts Added, Updated and Deleted events sent to watchers,
	// initial ones included; Bookmarks counts bookmarks sent.
	Events, Bookmarks uint64
	// Expired counts lists, continues and watches refused because their
	// version was too old or too new (injected expiries not included).
	Expired uint64
	// FailedLists and FailedWatches count injected failures;
	// InjectedExpiries counts watches expired by Faults.ExpireWatches.
	FailedLists, FailedWatches, InjectedExpiries uint64
	// ClosedWatches counts watches ended by Faults.CloseWatchesAfter or
	// CloseWatches.
	ClosedWatches uint64
	// DelayedLists and DelayedWatches count calls held by ListDelay and
	// WatchDelay.
	DelayedLists, DelayedWatches uint64
}

// counters are the running totals behind Stats.
type counters struct {
	creates, updates, deletes       atomic.Uint64
	lists, watches                  atomic.Uint64
	events, bookmarks               atomic.Uint64
	expired                         atomic.Uint64
	failedLists, failedWatches      atomic.Uint64
	injectedExpiries, closedWatches atomic.Uint64
	delayedLists, delayedWatches    atomic.Uint64
	activeWatches                   atomic.Int64
}

// Stats returns a snapshot of the source's counters. Counters are read one
// by one, so a snapshot taken during activity may mix moments.
func (s *Source[T]) Stats() Stats {
	c := &s.stats
	return Stats{
		Creates:          c.creates.Load(),
		Updates:          c.updates.Load(),
		Deletes:          c.deletes.Load(),
		Lists:            c.lists.Load(),
		Watches:          c.watches.Load(),
		ActiveWatches:    int(c.activeWatches.Load()),
		Events:           c.events.Load(),
		Bookmarks:        c.bookmarks.Load(),
		Expired:          c.expired.Load(),
		FailedLists:      c.failedLists.Load(),
		FailedWatches:    c.failedWatches.Load(),
		InjectedExpiries: c.injectedExpiries.Load(),
		ClosedWatches:    c.closedWatches.Load(),
		DelayedLists:     c.delayedLists.Load(),
		DelayedWatches:   c.delayedWatches.Load(),
	}
}
