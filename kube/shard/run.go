package shard

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// errStopped is the cause of the end of work contexts when Run stops.
var errStopped = errors.New("shard: Run stopped")

// Run makes this replica a member of the group, calls fn with ctx, and
// keeps the membership while fn runs: the replica's Lease is renewed
// every retry period, the group's Leases are read, and the keys this
// member owns change as members come and go. fn runs the controller: its
// informers and its queue's Run with [Work.Process], or, under a
// controller.Manager, the Manager's controllers through their gates.
// Work on keys starts only while Run runs, and keys wait while this
// member is not a live member, however long that lasts.
//
// When fn returns, Run stops the membership: it cancels the contexts of
// work still running, waits up to the renew deadline for it to end, and
// deletes this member's Lease (unless Options.KeepLease is set or work
// did not end) so that the others take its keys at once. It returns nil
// when ctx ended, fn's error when fn returned on its own, joined with an
// error deleting the Lease. It returns ErrRunning at once if another Run
// of s is in progress, and an error wrapping ErrInvalid if fn is nil.
func (s *Shard) Run(ctx context.Context, fn func(context.Context) error) error {
	if fn == nil {
		return fmt.Errorf("%w: nil function", ErrInvalid)
	}
	if !s.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer s.running.Store(false)

	loopCtx, stopLoop := context.WithCancel(ctx)
	m := &member{s: s, ctx: loopCtx, seen: map[string]*lease.Seen{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.loop(loopCtx)
	}()
	err := fn(ctx)
	own := ctx.Err() == nil
	stopLoop()
	<-done
	m.stop(errStopped)

	var relErr error
	if !s.keep && !m.rejoin && s.idle(ctx) {
		relErr = m.release(ctx)
	}
	if !own {
		err = nil // ctx ended: fn's error is its reaction to that
	}
	return errors.Join(err, relErr)
}

// idle waits until no work runs, at most the renew deadline, and reports
// whether none does.
func (s *Shard) idle(ctx context.Context) bool {
	limit := time.NewTimer(s.timings.RenewDeadline)
	defer limit.Stop()
	for {
		s.mu.Lock()
		n := len(s.inflight)
		s.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-s.wake:
		case <-limit.C:
			return false
		}
	}
}

// release deletes this member's Lease, on the condition that it is still
// the version this member last wrote (or read, after a failed write).
func (m *member) release(ctx context.Context) error {
	s := m.s
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timings.RenewDeadline)
	defer cancel()
	if m.cur == nil {
		l, err := s.leases.Get(ctx, s.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return fmt.Errorf("shard: delete Lease %s: %w", s.name, err)
		case holder(l) != s.identity:
			return nil
		}
		m.cur = l
	}
	rv := m.cur.ResourceVersion
	err := s.leases.Delete(ctx, s.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("shard: delete Lease %s: %w", s.name, err)
	}
	m.cur = nil
	return nil
}
