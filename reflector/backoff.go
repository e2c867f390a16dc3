package reflector

import (
	"math"
	"time"
)

// healthyWatch is how long a watch must stay open, if it delivers no
// event, for the source to count as healthy again. A watch that the
// source closes sooner without an event is a failure (ErrShortWatch).
const healthyWatch = time.Second

// backoff paces retries during an outage of the source: from a failure
// after the source was last healthy until it is healthy again. Only the
// goroutine running Reflector.Run touches it.
type backoff struct {
	cfg Backoff // with defaults applied
	// since is when the current outage began, or the zero Time while the
	// source is healthy.
	since time.Time
}

// healthy records that the source served the reflector: a watch
// delivered an event or stayed open for healthyWatch. The next failure
// begins a new outage.
func (b *backoff) healthy() { b.since = time.Time{} }

// delay records a failure at now and returns how long to wait before the
// next attempt: (Factor-1) times the outage so far, within [Initial, Max],
// stretched by up to Jitter of itself. rand returns a number in [0, 1).
func (b *backoff) delay(now time.Time, rand func() float64) time.Duration {
	if b.since.IsZero() {
		b.since = now
	}
	base := float64(now.Sub(b.since)) * (b.cfg.Factor - 1)
	base = min(max(base, float64(b.cfg.Initial)), float64(b.cfg.Max))
	return durationOf(base * (1 + b.cfg.Jitter*rand()))
}

// durationOf converts f nanoseconds to a Duration, saturating instead of
// overflowing.
func durationOf(f float64) time.Duration {
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(f)
}
