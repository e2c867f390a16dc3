package leader

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// campaign is the state of one Run: what it last knew of the Lease.
type campaign struct {
	e *Elector
	// cur is the Lease as this candidate last read or wrote it, or nil
	// when it must be read again (at first, and after a failed request).
	cur *coordinationv1.Lease
	// seen is when this candidate first saw the Lease's current version.
	seen lease.Seen
}

// result is the outcome of one attempt to acquire or renew the Lease.
type result struct {
	held    bool      // the Lease was written with this candidate as its holder
	sent    time.Time // when that write was sent
	takenBy string    // while leading: the other candidate the Lease names
	err     error     // the request that failed, if any
}

// try makes one attempt to acquire the Lease, or to renew it while
// leading. A candidate reads the Lease each time, and writes it only when
// it is free, its own, or unchanged for a lease duration since this
// candidate first saw that version. The leader writes the Lease it last
// wrote, reading it again only after a failure. Every write is conditional
// on the resource version read, so that of two candidates writing the same
// version one fails.
func (c *campaign) try(ctx context.Context, leading bool) result {
	if c.cur == nil || !leading {
		l, err := c.e.leases.Get(ctx, c.e.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return c.create(ctx)
		}
		if err != nil {
			return result{err: fmt.Errorf("leader: get Lease %s: %w", c.e.name, err)}
		}
		c.cur = l
		c.seen.Observe(l)
		c.saw(l)
	}
	if h := holder(c.cur); h != "" && h != c.e.identity {
		if leading {
			return result{takenBy: h}
		}
		if !c.seen.Expired(c.cur, c.e.opts.LeaseDuration) {
			return result{}
		}
	}
	next := c.cur.DeepCopy()
	c.claim(next)
	sent := time.Now()
	written, err := c.e.leases.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		c.cur = nil
		return result{err: fmt.Errorf("leader: update Lease %s: %w", c.e.name, err)}
	}
	c.cur = written
	c.saw(written)
	return result{held: true, sent: sent}
}

// create creates the Lease with this candidate as its holder.
func (c *campaign) create(ctx context.Context) result {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: c.e.name}}
	c.claim(l)
	sent := time.Now()
	written, err := c.e.leases.Create(ctx, l, metav1.CreateOptions{})
	if err != nil {
		return result{err: fmt.Errorf("leader: create Lease %s: %w", c.e.name, err)}
	}
	c.cur = written
	c.saw(written)
	return result{held: true, sent: sent}
}

// saw records the holder l names as the one Leader reports.
func (c *campaign) saw(l *coordinationv1.Lease) {
	h := holder(l)
	c.e.leader.Store(&h)
}

// claim makes l name this candidate as its holder, renewed now.
func (c *campaign) claim(l *coordinationv1.Lease) {
	now := metav1.NowMicro()
	s := &l.Spec
	if holder(l) != c.e.identity {
		id := c.e.identity
		s.HolderIdentity = &id
		s.AcquireTime = &now
		n := int32(1)
		if s.LeaseTransitions != nil {
			n = *s.LeaseTransitions + 1
		}
		s.LeaseTransitions = &n
	}
	secs := c.e.opts.timings().Seconds()
	s.LeaseDurationSeconds = &secs
	s.RenewTime = &now
}

// release clears the Lease's holder, if it still names this candidate, so
// that another candidate can take it at once. It is called after the
// function has returned; its requests outlive ctx by at most
// RenewDeadline.
func (c *campaign) release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.e.opts.RenewDeadline)
	defer cancel()
	l := c.cur
	if l == nil {
		var err error
		if l, err = c.e.leases.Get(ctx, c.e.name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("leader: release Lease %s: %w", c.e.name, err)
		}
		c.saw(l)
	}
	if holder(l) != c.e.identity {
		return nil
	}
	l = l.DeepCopy()
	now := metav1.NowMicro()
	l.Spec.HolderIdentity = nil
	l.Spec.RenewTime = &now
	written, err := c.e.leases.Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("leader: release Lease %s: %w", c.e.name, err)
	}
	c.saw(written)
	return nil
}

// holder returns the identity the Lease names, or "" when it is free.
func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
