package shard

import (
	"context"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// Names this package writes on Leases.
const (
	// GroupLabel labels every member's Lease with the group's name.
	GroupLabel = "shard.typedcache.io/group"
	// AckAnnotation is the set of members a member has adopted,
	// comma-separated: it works only on keys it owns under that set, and
	// no work of its own runs on any other key.
	AckAnnotation = "shard.typedcache.io/ack"
)

// member is the state of one Run's membership loop, used by its goroutine
// alone.
type member struct {
	s *Shard
	// ctx is Run's context, parent of every term's.
	ctx context.Context
	// cur is this member's Lease as last written, or nil when it must be
	// read or created again (at first, after a failed write, and after it
	// was lost).
	cur *coordinationv1.Lease
	// rejoin is set when the Lease was lost: it is written again only
	// once no work runs.
	rejoin bool
	// listed is when the last successful list of the group's Leases
	// was sent; zero before the first.
	listed time.Time
	// seen records, per Lease name, when this member first saw the
	// version of another member's Lease it last saw.
	seen map[string]*lease.Seen
	dog  *lease.Watchdog
	// announced is the term and acks last announced to the works.
	announced string
}

// loop renews this member's Lease and reads the group's Leases every
// retry period until ctx ends; when a change of membership can be
// acknowledged at once it does not wait.
func (m *member) loop(ctx context.Context) {
	m.list(ctx)
	tick := time.NewTimer(m.s.timings.RetryPeriod)
	defer tick.Stop()
	for ctx.Err() == nil {
		wrote := m.write(ctx)
		m.list(ctx)
		m.announce()
		if wrote && m.adoptable() {
			continue
		}
		tick.Reset(m.s.timings.RetryPeriod)
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-m.s.wake:
			if !m.adoptable() && !m.rejoin {
				// Work ended on a key this member still owns: nothing to
				// acknowledge; wait for the rest of the period.
				select {
				case <-ctx.Done():
				case <-tick.C:
				}
			}
		}
	}
}

// adoptable reports whether this member can write a new ack now.
func (m *member) adoptable() bool {
	s := m.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target != nil && !slices.Equal(s.target, s.adopted) && s.readyLocked()
}

// write renews this member's Lease, carrying the target set as its ack if
// no work runs on a key it would lose, and reports whether it succeeded.
// A successful write begins a term or extends the current one. A Lease
// found deleted or changed by another party ends the term: this member
// starts nothing until all its work has ended and it has written its
// Lease again.
//
// It writes nothing before the first successful list (it has no ack to
// publish yet), nor while it has not listed the group for a renew
// deadline: a member that cannot read the others' Leases cannot see
// joiners and acknowledge them, so it lets its Lease expire rather than
// hold keys they wait for.
func (m *member) write(ctx context.Context) bool {
	s := m.s
	if m.listed.IsZero() || time.Since(m.listed) > s.timings.RenewDeadline {
		return false
	}
	s.mu.Lock()
	ack := s.adopted
	if s.target != nil && s.readyLocked() {
		ack = s.target
	}
	idle := len(s.inflight) == 0
	s.mu.Unlock()
	if m.rejoin && !idle {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, s.timings.RenewDeadline)
	defer cancel()
	sent := time.Now()
	written, err := m.put(ctx, ack)
	switch {
	case err == nil:
		m.renewed(written, ack, sent)
		return true
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		m.lost(fmt.Errorf("%w: Lease %s: %w", ErrFenced, s.name, err))
	default:
		m.failed(ack, err)
	}
	return false
}

// failed records a write that failed: it may still have taken effect, so
// its ack restricts the keys started until a write succeeds, and the
// Lease is read again before the next write.
func (m *member) failed(ack members, err error) {
	s := m.s
	m.cur = nil
	s.mu.Lock()
	if !slices.Equal(ack, s.adopted) {
		s.pending, s.uncertain = ack, true
	}
	s.mu.Unlock()
	if m.dog != nil {
		m.dog.Failed(err)
	}
}

// put writes this member's Lease with ack: an update of the version last
// written, or after a loss, of the version read, or a creation.
func (m *member) put(ctx context.Context, ack members) (*coordinationv1.Lease, error) {
	s := m.s
	if m.cur == nil {
		l, err := s.leases.Get(ctx, s.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.name}}
			m.fill(l, ack)
			return s.leases.Create(ctx, l, metav1.CreateOptions{})
		case err != nil:
			return nil, err
		}
		m.cur = l
	}
	l := m.cur.DeepCopy()
	m.fill(l, ack)
	return s.leases.Update(ctx, l, metav1.UpdateOptions{})
}

// fill makes l this member's Lease, renewed now, carrying ack.
func (m *member) fill(l *coordinationv1.Lease, ack members) {
	s := m.s
	now := metav1.NowMicro()
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[GroupLabel] = s.group
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AckAnnotation] = ack.String()
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != s.identity {
		id := s.identity
		l.Spec.HolderIdentity = &id
		l.Spec.AcquireTime = &now
	}
	secs := s.timings.Seconds()
	l.Spec.LeaseDurationSeconds = &secs
	l.Spec.RenewTime = &now
}

// renewed records a successful write sent at sent, carrying ack.
func (m *member) renewed(l *coordinationv1.Lease, ack members, sent time.Time) {
	s := m.s
	m.cur, m.rejoin = l, false
	s.mu.Lock()
	s.pending, s.uncertain = nil, false
	if !slices.Equal(ack, s.adopted) {
		s.adopted = ack
		s.acked++
	}
	if s.term != nil {
		s.mu.Unlock()
		m.dog.Renewed(sent)
		return
	}
	ctx, cancel := context.WithCancelCause(m.ctx)
	t := &term{ctx: ctx, cancel: cancel}
	s.term = t
	s.terms++
	s.mu.Unlock()
	if m.dog != nil {
		m.dog.Stop()
	}
	m.dog = lease.NewWatchdog(sent, s.timings.RenewDeadline, func(cause error) { s.endTerm(t, cause) }, ErrFenced)
}

// lost ends the term after this member found its Lease deleted or
// changed: the others may already treat it as gone.
func (m *member) lost(cause error) {
	s := m.s
	m.cur, m.rejoin = nil, true
	s.mu.Lock()
	t := s.term
	s.adopted, s.pending, s.uncertain = nil, nil, false
	s.acked++
	s.mu.Unlock()
	if t != nil {
		s.endTerm(t, cause)
	}
}

// stop ends the term and the watchdog when Run stops.
func (m *member) stop(cause error) {
	s := m.s
	s.mu.Lock()
	t := s.term
	s.mu.Unlock()
	if t != nil {
		s.endTerm(t, cause)
	}
	if m.dog != nil {
		m.dog.Stop()
	}
}
