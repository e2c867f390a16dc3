package reflector

import (
	"math"
	"time"
)

// backoff is the retry pacing state of one reflector. Only the goroutine
// running Reflector.Run touches it.
type backoff struct {
	cfg Backoff // with defaults applied
	// next is the delay, before jitter, of the next failure; zero means
	// cfg.Initial.
	next time.Duration
	// healthySince is when the reflector last resumed after a backoff; a
	// failure after cfg.Reset of health starts again at cfg.Initial.
	healthySince time.Time
}

// delay records a failure at now and returns how long to wait before the
// next attempt. rand returns a number in [0, 1).
func (b *backoff) delay(now time.Time, rand func() float64) time.Duration {
	if b.next == 0 || now.Sub(b.healthySince) >= b.cfg.Reset {
		b.next = b.cfg.Initial
	}
	base := b.next
	b.next = durationOf(min(float64(base)*b.cfg.Factor, float64(b.cfg.Max)))
	d := durationOf(float64(base) * (1 + b.cfg.Jitter*rand()))
	b.healthySince = now.Add(d)
	return d
}

// durationOf converts f nanoseconds to a Duration, saturating instead of
// overflowing.
func durationOf(f float64) time.Duration {
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(f)
}
