package informer

import (
	"time"

	"github.com/typedcache/typedcache/internal/fanout"
)

// setResyncLocked applies client-go's resync rules to a new listener
// asking for period (0: the informer's default; negative: never).
// Requires mu held.
func (inf *Informer[T]) setResyncLocked(l *fanout.Listener[T], period time.Duration) {
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
					other.SetResyncCheck(period)
				}
			}
		}
	}
	l.SetResync(period, inf.check)
}

// shouldResync is the reflector's ShouldResync: it marks due the
// listeners whose resync period has elapsed (and only those: resync
// notifications go to them until the next check), schedules their next
// resync, and reports whether any is due.
func (inf *Informer[T]) shouldResync() bool {
	now := time.Now()
	anyDue := false
	for _, l := range *inf.listeners.Load() {
		if l.CheckResync(now) {
			anyDue = true
		}
	}
	return anyDue
}
