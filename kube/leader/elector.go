package leader

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// ErrLost is wrapped by the error Run returns when this candidate stopped
// leading because it could not renew the Lease in time or found it taken.
var ErrLost = errors.New("leader: leadership lost")

// ErrRunning is returned by Run when another call to Run of the same
// Elector has not returned yet.
var ErrRunning = errors.New("leader: Run is already running")

// Elector campaigns for one Lease on behalf of one candidate. Its methods
// are safe for simultaneous use by multiple goroutines, but only one Run
// may be in progress at a time.
type Elector struct {
	leases   coordinationv1client.LeaseInterface
	name     string
	identity string
	opts     Options
	running  atomic.Bool
	// leader is the holder the Lease named when this candidate last read
	// or wrote it.
	leader atomic.Pointer[string]
}

// New returns an Elector for the Lease called name in the namespace of
// leases (clientset.CoordinationV1().Leases(namespace)), campaigning as
// identity. The identity must be unique among the live candidates (a pod
// name, or a host name with a random suffix): a candidate that finds its
// own identity in the Lease takes it as its own. New returns an error
// wrapping ErrInvalid for a nil client, an empty name or identity, or
// timings Options rejects.
func New(leases coordinationv1client.LeaseInterface, name, identity string, opts Options) (*Elector, error) {
	switch {
	case leases == nil:
		return nil, fmt.Errorf("%w: nil Lease client", ErrInvalid)
	case name == "":
		return nil, fmt.Errorf("%w: empty Lease name", ErrInvalid)
	case identity == "":
		return nil, fmt.Errorf("%w: empty identity", ErrInvalid)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Elector{leases: leases, name: name, identity: identity, opts: opts}, nil
}

// Identity returns the identity the elector campaigns as.
func (e *Elector) Identity() string { return e.identity }

// Leader returns the identity the Lease named when this candidate last
// read or wrote it: its own while it leads, the leader's while it
// follows, and "" before its first read and while the Lease is free. It
// makes e a controller.LeaderReporter: a controller.Manager whose Elector
// is e is ready once this replica knows whether it leads.
func (e *Elector) Leader() string {
	if p := e.leader.Load(); p != nil {
		return *p
	}
	return ""
}

// Run campaigns for the Lease until it holds it, then calls fn with a
// context that is cancelled when leadership ends, and returns once fn has
// returned. Leadership ends when ctx ends, when fn returns, or when the
// Lease is lost: not renewed within RenewDeadline of sending the last
// successful renewal, or found held by another candidate.
//
// If ctx ends as the Lease is acquired, fn is not called.
//
// Run returns nil when ctx ended (while campaigning or leading), fn's
// error when fn returned on its own, and an error wrapping ErrLost
// (joined with fn's error, if any) when leadership was lost. In the first
// two cases it then releases the Lease, unless Options.KeepLease is set;
// an error releasing it is returned too. After a loss it does not release
// the Lease and does not campaign again: call Run again for that. It
// returns ErrRunning at once if another Run of e is in progress.
func (e *Elector) Run(ctx context.Context, fn func(context.Context) error) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer e.running.Store(false)
	c := &campaign{e: e}
	sent, ok := c.acquire(ctx)
	switch {
	case !ok:
		return nil
	case ctx.Err() != nil: // acquired as ctx ended: fn is not called
		if c.e.opts.KeepLease {
			return nil
		}
		return c.release(ctx)
	}
	return c.lead(ctx, sent, fn)
}

// acquire tries to acquire the Lease every retry period until it holds it
// or ctx ends. It returns the time the acquiring write was sent, and
// whether it succeeded.
func (c *campaign) acquire(ctx context.Context) (time.Time, bool) {
	for {
		if res := c.try(ctx, false); res.held && time.Since(res.sent) < c.e.opts.RenewDeadline {
			return res.sent, true
		}
		if !lease.Sleep(ctx, c.e.opts.RetryPeriod) {
			return time.Time{}, false
		}
	}
}

// lead runs fn while the Lease is renewed every retry period, and returns
// Run's result once fn has returned.
func (c *campaign) lead(ctx context.Context, sent time.Time, fn func(context.Context) error) error {
	leadCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	w := lease.NewWatchdog(sent, c.e.opts.RenewDeadline, stop, ErrLost)
	fnDone := make(chan error, 1)
	go func() { fnDone <- fn(leadCtx) }()

	var fnErr error
	returned, own := false, false // fn has returned; it did before leadership ended
	tick := time.NewTimer(c.e.opts.RetryPeriod)
	defer tick.Stop()
renew:
	for {
		select {
		case fnErr = <-fnDone:
			returned, own = true, leadCtx.Err() == nil
			break renew
		case <-leadCtx.Done():
			break renew
		case <-tick.C:
		}
		// The request is abandoned when leadership ends, and at the
		// latest at the renew deadline, after which it cannot help.
		reqCtx, cancel := context.WithDeadline(leadCtx, w.Due())
		res := c.try(reqCtx, true)
		cancel()
		switch {
		case res.held:
			w.Renewed(res.sent)
		case res.takenBy != "":
			stop(fmt.Errorf("%w: the Lease is held by %q", ErrLost, res.takenBy))
		default:
			w.Failed(res.err)
		}
		tick.Reset(c.e.opts.RetryPeriod)
	}
	stop(nil)
	if !returned {
		fnErr = <-fnDone
	}
	w.Stop()

	if cause := context.Cause(leadCtx); errors.Is(cause, ErrLost) {
		return errors.Join(cause, fnErr)
	}
	var relErr error
	if !c.e.opts.KeepLease {
		relErr = c.release(ctx)
	}
	if !own {
		fnErr = nil // ctx ended: the function's error is its reaction to that
	}
	return errors.Join(fnErr, relErr)
}
