package leader

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Default timings, those of client-go's leader election and of the
// Kubernetes control plane's own components.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// ErrInvalid is wrapped by every error New returns for a configuration it
// rejects.
var ErrInvalid = errors.New("leader: invalid configuration")

// Options configures an Elector. The zero value means the defaults: a
// 15 s lease, a 10 s renew deadline, a 2 s retry period, and the Lease
// released when the elector stops leading on its own.
type Options struct {
	// LeaseDuration is how long the other candidates wait, after they
	// last saw the Lease change, before they take it from a holder that
	// stopped renewing it. It is written to the Lease rounded up to whole
	// seconds. The default is DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps leading after it sent
	// its last successful renewal: when it has not renewed by then, its
	// function's context is cancelled. It must be shorter than
	// LeaseDuration; the difference is the time the function has to
	// return before another candidate may take over. The default is
	// DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the time between two attempts, of a candidate to
	// acquire the Lease and of the leader to renew it. It must be shorter
	// than RenewDeadline. The default is DefaultRetryPeriod.
	RetryPeriod time.Duration
	// KeepLease leaves the Lease to expire when Run stops leading because
	// its context ended or its function returned, as if the process had
	// crashed. By default Run releases it (after the function has
	// returned), so that another candidate takes over within one retry
	// period instead of one lease duration.
	KeepLease bool
}

// withDefaults returns o with every zero timing replaced by its default,
// or an error wrapping ErrInvalid.
func (o Options) withDefaults() (Options, error) {
	for _, f := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"LeaseDuration", &o.LeaseDuration, DefaultLeaseDuration},
		{"RenewDeadline", &o.RenewDeadline, DefaultRenewDeadline},
		{"RetryPeriod", &o.RetryPeriod, DefaultRetryPeriod},
	} {
		switch {
		case *f.d < 0:
			return o, fmt.Errorf("%w: %s must not be negative, got %v", ErrInvalid, f.name, *f.d)
		case *f.d == 0:
			*f.d = f.def
		}
	}
	switch {
	case o.RenewDeadline >= o.LeaseDuration:
		return o, fmt.Errorf("%w: RenewDeadline (%v) must be shorter than LeaseDuration (%v)", ErrInvalid, o.RenewDeadline, o.LeaseDuration)
	case o.RetryPeriod >= o.RenewDeadline:
		return o, fmt.Errorf("%w: RetryPeriod (%v) must be shorter than RenewDeadline (%v)", ErrInvalid, o.RetryPeriod, o.RenewDeadline)
	case o.LeaseDuration > math.MaxInt32*time.Second:
		return o, fmt.Errorf("%w: LeaseDuration (%v) does not fit the Lease's leaseDurationSeconds", ErrInvalid, o.LeaseDuration)
	}
	return o, nil
}

// leaseSeconds is LeaseDuration rounded up to whole seconds, as the Lease
// records it.
func (o Options) leaseSeconds() int32 {
	return int32((o.LeaseDuration + time.Second - 1) / time.Second)
}
