package lease

import (
	"context"
	"fmt"
	"math"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// Default timings, those of client-go's leader election and of the
// Kubernetes control plane's own components.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Timings are the three durations of a Lease's renewal.
type Timings struct {
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// WithDefaults returns t with every zero duration replaced by its default,
// or an error wrapping invalid when a duration is negative, when they are
// not in the order RetryPeriod < RenewDeadline < LeaseDuration, or when
// LeaseDuration does not fit the Lease's leaseDurationSeconds.
func (t Timings) WithDefaults(invalid error) (Timings, error) {
	for _, f := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"LeaseDuration", &t.LeaseDuration, DefaultLeaseDuration},
		{"RenewDeadline", &t.RenewDeadline, DefaultRenewDeadline},
		{"RetryPeriod", &t.RetryPeriod, DefaultRetryPeriod},
	} {
		switch {
		case *f.d < 0:
			return t, fmt.Errorf("%w: %s must not be negative, got %v", invalid, f.name, *f.d)
		case *f.d == 0:
			*f.d = f.def
		}
	}
	switch {
	case t.RenewDeadline >= t.LeaseDuration:
		return t, fmt.Errorf("%w: RenewDeadline (%v) must be shorter than LeaseDuration (%v)", invalid, t.RenewDeadline, t.LeaseDuration)
	case t.RetryPeriod >= t.RenewDeadline:
		return t, fmt.Errorf("%w: RetryPeriod (%v) must be shorter than RenewDeadline (%v)", invalid, t.RetryPeriod, t.RenewDeadline)
	case t.LeaseDuration > math.MaxInt32*time.Second:
		return t, fmt.Errorf("%w: LeaseDuration (%v) does not fit the Lease's leaseDurationSeconds", invalid, t.LeaseDuration)
	}
	return t, nil
}

// Seconds is LeaseDuration rounded up to whole seconds, as a Lease records
// it.
func (t Timings) Seconds() int32 {
	return int32((t.LeaseDuration + time.Second - 1) / time.Second)
}

// Seen is this process's record of a Lease's version: the version it last
// saw and the local monotonic time it first saw it. The zero value has
// seen nothing.
type Seen struct {
	version string
	at      time.Time
}

// Observe records l's version, restarting the clock if it changed. Call it
// when the response that carried l has arrived.
func (s *Seen) Observe(l *coordinationv1.Lease) {
	if l.ResourceVersion != s.version {
		s.version, s.at = l.ResourceVersion, time.Now()
	}
}

// Expired reports whether the version last observed has stayed the same
// for a lease duration: the longer of own and the one l states.
func (s *Seen) Expired(l *coordinationv1.Lease, own time.Duration) bool {
	if d := l.Spec.LeaseDurationSeconds; d != nil && time.Duration(*d)*time.Second > own {
		own = time.Duration(*d) * time.Second
	}
	return time.Since(s.at) >= own
}

// Sleep waits for d or for the end of ctx, and reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
