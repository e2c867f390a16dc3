package shard

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// Shard is one replica's membership in a group that shares the keys of
// its work queues. Its methods are safe for simultaneous use by multiple
// goroutines, but only one Run may be in progress at a time.
type Shard struct {
	leases   coordinationv1client.LeaseInterface
	group    string
	identity string
	name     string // of this member's Lease
	timings  lease.Timings
	keep     bool
	running  atomic.Bool
	// wake tells the membership loop that work ended, so that an ack or
	// a rejoin waiting for it may proceed (capacity 1, never blocks).
	wake chan struct{}

	mu sync.Mutex
	// term is the current right to start work; nil outside one. A term
	// begins with a successful write of the Lease and ends at the renew
	// deadline, on a fence, or when Run stops.
	term *term
	// terms counts the terms begun, to tell a new one from the last.
	terms uint64
	// adopted is the ack the Lease carries as last written: every running
	// work's key is owned by this member under it. Nil when the Lease is
	// not written yet or was lost.
	adopted members
	// acked counts the writes that changed adopted.
	acked uint64
	// pending is the ack of a write whose outcome is unknown (it failed
	// but may have taken effect), valid while uncertain is set: work
	// starts only on keys owned under it too, until a write succeeds.
	pending   members
	uncertain bool
	// target is the set of live members as last listed, this member
	// included: work is started only on keys it owns under target. Nil
	// before the first list.
	target members
	// snap is the others' acks from the last list, valid only while
	// snap.acked == acked: the list was sent after adopted was written.
	snap *snapshot
	// inflight counts the running work per key.
	inflight map[string]int
	// works are the queues sharded by this member, told of changes.
	works []sharded
}

// term is one period in which this member may start work.
type term struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// snapshot is what one list of the group's Leases said of the other live
// members.
type snapshot struct {
	acked uint64    // Shard.acked when the list was sent
	acks  []members // the distinct acks of the other live members
}

// sharded is what the membership loop tells a Work.
type sharded interface {
	// gained enqueues the keys owned under now but not under before, and
	// forgets parked keys not owned under now.
	gained(before, now members)
	// unpark enqueues the parked keys again.
	unpark()
}

// Identity returns the identity of this member.
func (s *Shard) Identity() string { return s.identity }

// Members returns the identities of the live members as this member last
// listed them, itself included, sorted; nil before the first list.
func (s *Shard) Members() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.target)
}

// verdict is what start decided for a key.
type verdict int

const (
	started  verdict = iota
	notOwned         // another member owns the key: drop it
	blocked          // this member owns it but may not start it yet: park it
)

// start decides whether work on key may start now and, if so, counts it
// as running and returns a context that ends when ctx or the term does.
// park runs under the lock when the key is blocked, so that no change
// that would unblock it can slip between the decision and the parking.
func (s *Shard) start(ctx context.Context, key string, park func()) (context.Context, context.CancelCauseFunc, verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.target.owner(key) != s.identity {
		return nil, nil, notOwned
	}
	if !s.startableLocked(key) {
		park()
		return nil, nil, blocked
	}
	s.inflight[key]++
	t := s.term
	wctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(t.ctx, func() { cancel(context.Cause(t.ctx)) })
	return wctx, func(err error) { stop(); cancel(err) }, started
}

// startableLocked reports whether work on key, owned under target, may
// start: within a term, owned under the ack this member wrote (and under
// one it may have written), and owned
// by this member under the ack of every other live member, as read by a
// list sent after this member's ack was written.
func (s *Shard) startableLocked(key string) bool {
	if s.term == nil || s.term.ctx.Err() != nil || s.snap == nil || s.snap.acked != s.acked {
		return false
	}
	if s.adopted.owner(key) != s.identity || s.uncertain && s.pending.owner(key) != s.identity {
		return false
	}
	for _, a := range s.snap.acks {
		if a.owner(key) != s.identity {
			return false
		}
	}
	return true
}

// finish records the end of work on key begun by start, and reports
// whether the work's term ended while it ran.
func (s *Shard) finish(key string, wctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[key]--; s.inflight[key] == 0 {
		delete(s.inflight, key)
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	return errors.Is(context.Cause(wctx), ErrFenced)
}

// readyLocked reports whether no work runs on a key this member does not
// own under target, so that it may write target as its ack.
func (s *Shard) readyLocked() bool {
	for key := range s.inflight {
		if s.target.owner(key) != s.identity {
			return false
		}
	}
	return true
}

// endTerm ends t, if it is still the current term, with cause.
func (s *Shard) endTerm(t *term, cause error) {
	s.mu.Lock()
	if s.term == t {
		s.term, s.snap = nil, nil
	}
	s.mu.Unlock()
	t.cancel(cause)
}
