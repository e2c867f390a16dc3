package fanout

import (
	"sync"
	"sync/atomic"
	"time"
)

// resync is a listener's resync schedule. Its owner checks it every check
// period (CheckResync); the listener is due at a check once its period in
// effect has elapsed, and Push passes resync notifications only while it
// is due.
type resync struct {
	// mu guards requested, period and next. It is never held with the
	// listener's buffer mutex.
	mu sync.Mutex
	// requested is the period asked for; 0 means never.
	requested time.Duration
	// period is the period in effect: requested, at least the check
	// period, 0 (never) if either is 0.
	period time.Duration
	// next is when the listener is next due.
	next time.Time
	// due reports whether resync notifications are pushed now. It is
	// written under mu and read by Push without it.
	due atomic.Bool
}

// SetResync sets the resync period the listener asks for and its owner's
// check period (0 for either: never), and schedules the first resync one
// period in effect from now. The period in effect is requested, raised to
// check, and zero if either is zero.
func (l *Listener[T]) SetResync(requested, check time.Duration) {
	r := &l.resync
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requested = requested
	r.period = effectivePeriod(requested, check)
	r.next = time.Now().Add(r.period)
}

// SetResyncCheck recomputes the period in effect for a new check period,
// keeping the time the listener is next due.
func (l *Listener[T]) SetResyncCheck(check time.Duration) {
	r := &l.resync
	r.mu.Lock()
	defer r.mu.Unlock()
	r.period = effectivePeriod(r.requested, check)
}

// ResyncPeriod returns the resync period in effect; 0 means never.
func (l *Listener[T]) ResyncPeriod() time.Duration {
	r := &l.resync
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.period
}

// CheckResync is one check of the resync schedule at now. It marks the
// listener due, until the next check, if its period in effect has
// elapsed, and then schedules the next resync one period from now. It
// reports whether the listener is due.
func (l *Listener[T]) CheckResync(now time.Time) bool {
	r := &l.resync
	r.mu.Lock()
	defer r.mu.Unlock()
	due := r.period > 0 && !now.Before(r.next)
	r.due.Store(due)
	if due {
		r.next = now.Add(r.period)
	}
	return due
}

// effectivePeriod returns the period in effect for a listener asking for
// requested, checked every check: none if either is zero, and at least
// check.
func effectivePeriod(requested, check time.Duration) time.Duration {
	if requested == 0 || check == 0 {
		return 0
	}
	return max(requested, check)
}
