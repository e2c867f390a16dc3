package leader

import (
	"errors"
	"time"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// Default timings, those of client-go's leader election and of the
// Kubernetes control plane's own components.
const (
	DefaultLeaseDuration = lease.DefaultLeaseDuration
	DefaultRenewDeadline = lease.DefaultRenewDeadline
	DefaultRetryPeriod   = lease.DefaultRetryPeriod
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
	t, err := o.timings().WithDefaults(ErrInvalid)
	o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = t.LeaseDuration, t.RenewDeadline, t.RetryPeriod
	return o, err
}

// timings returns the three durations of o.
func (o Options) timings() lease.Timings {
	return lease.Timings{LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod}
}
