package informer

import (
	"sync/atomic"
	"time"
)

// resyncState is a listener's resync bookkeeping.
type resyncState struct {
	// requested is the period the handler asked for, after raising it to
	// MinResyncPeriod; 0 means never.
	requested time.Duration
	// period is the period in effect: requested adjusted to the
	// informer's check period.
	period time.Duration
	// next is when the handler is next due.
	next time.Time
	// due reports whether resync notifications go to the handler now.
	due atomic.Bool
}

// setResyncLocked applies client-go's resync rules to a new listener
// asking for period (0: the informer's default; negative: never).
// Requires mu held.
func (inf *Informer[T]) setResyncLocked(l *listener[T], period time.Duration) {
	switch {
	case period == 0:
		period = inf.defaultResync
	case period < 0:
		period = 0
	}
	if period > 0 {
		period = max(period, MinResyncPeriod)
		if period < inf.check {
			if inf.started {
				// The reflector's timer is running at the check period
				// and cannot tick faster.
				period = inf.check
			} else {
				inf.check = period
				for _, other := range *inf.listeners.Load() {
					other.resync.period = effectiveResync(other.resync.requested, period)
				}
			}
		}
	}
	l.resync.requested = period
	l.resync.period = effectiveResync(period, inf.check)
	l.resync.next = time.Now().Add(l.resync.period)
}

// effectiveResync returns the period a listener asking for requested gets
// from an informer checking every check: none if either is zero, and at
// least check.
func effectiveResync(requested, check time.Duration) time.Duration {
	if requested == 0 || check == 0 {
		return 0
	}
	return max(requested, check)
}

// shouldResync is the reflector's ShouldResync: it marks due the
// listeners whose resync period has elapsed (and only those: resync
// notifications go to them until the next check), schedules their next
// resync, and reports whether any is due.
func (inf *Informer[T]) shouldResync() bool {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	now := time.Now()
	anyDue := false
	for _, l := range *inf.listeners.Load() {
		r := &l.resync
		due := r.period > 0 && !now.Before(r.next)
		r.due.Store(due)
		if due {
			r.next = now.Add(r.period)
			anyDue = true
		}
	}
	return anyDue
}
