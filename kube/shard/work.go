package shard

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/typedcache/typedcache/queue"
)

// Work shards the keys of one work queue among the members of a group:
// wrapped by [Work.Process], the queue's workers process only the keys
// this member owns, and only when no other member can be processing them.
// A controller.Manager whose Elector is the Shard makes one for each
// controller (see [Shard.Gate]); NewWork makes one for a bare queue.
type Work[K comparable] struct {
	s   *Shard
	add func(K)
	key func(K) string
	all iter.Seq[K]

	mu sync.Mutex
	// parked are keys this member owns but could not start: they are
	// added to the queue again when the acks or the term change.
	parked map[K]struct{}
}

// NewWork returns the sharding of the keys of q by s. key names a queue
// key as a string: the hash of that string decides which member owns it,
// so every replica must name a key the same way, and two keys named alike
// are never processed at the same time. all iterates over every key the
// controller has work for, typically from an informer's cache
// (Cache().Keys(), or a conversion of it); it is walked each time this
// member gains keys, and its keys this member gained are added to q.
// NewWork returns an error wrapping ErrInvalid if an argument is nil.
func NewWork[K comparable](s *Shard, q *queue.TypedRateLimitingQueue[K], key func(K) string, all iter.Seq[K]) (*Work[K], error) {
	if q == nil {
		return nil, fmt.Errorf("%w: nil queue", ErrInvalid)
	}
	return newWork(s, q.Add, key, all)
}

// newWork returns the sharding by s of the keys that add queues.
func newWork[K comparable](s *Shard, add func(K), key func(K) string, all iter.Seq[K]) (*Work[K], error) {
	switch {
	case s == nil:
		return nil, fmt.Errorf("%w: nil Shard", ErrInvalid)
	case key == nil:
		return nil, fmt.Errorf("%w: nil key function", ErrInvalid)
	case all == nil:
		return nil, fmt.Errorf("%w: nil key iterator", ErrInvalid)
	}
	w := &Work[K]{s: s, add: add, key: key, all: all, parked: map[K]struct{}{}}
	s.mu.Lock()
	s.works = append(s.works, w)
	s.mu.Unlock()
	return w, nil
}

// Process wraps reconcile, the function given to the queue's Run, so that
// for each key:
//
//   - a key another member owns is dropped: reconcile is not called and
//     the queue forgets it (its owner processes it);
//   - a key this member owns but may not start yet (another member has
//     not released it, or this member is not a live member now) is
//     parked: the queue forgets it, and it is added again when the
//     members' acks or this member's term change;
//   - otherwise reconcile runs, with a context that also ends when this
//     member stops being a live member (its cause wraps ErrFenced); an
//     error it returns after such an end is not retried with backoff: the
//     key is queued again at once, to be parked until this member may
//     start it.
//
// The decision and the record that the key's work runs are made together
// under the Shard's lock, atomically with changes of membership.
func (w *Work[K]) Process(reconcile func(context.Context, K) (queue.Result, error)) func(context.Context, K) (queue.Result, error) {
	return func(ctx context.Context, k K) (res queue.Result, err error) {
		wctx, end, ok := w.Start(ctx, k)
		if !ok {
			return queue.Result{}, nil
		}
		returned := false
		defer func() {
			if !returned {
				end() // a panic goes on to the queue's worker
			}
		}()
		res, err = reconcile(wctx, k)
		returned = true
		if end() && err != nil {
			// Its term ended under it: run it again, through this
			// function, which parks it until this member may.
			w.add(k)
			return queue.Result{}, nil
		}
		return res, err
	}
}

// Start is the decision Process makes for k, for a caller that runs the
// work itself: ok false means k was dropped or parked, as Process
// describes; otherwise the work runs in wctx, and end, called once it
// has returned (exactly once), reports whether it was fenced while it
// ran, in which case the caller queues k again at once rather than retry
// an error with backoff. A *Work[string] is a controller.ShardGate.
func (w *Work[K]) Start(ctx context.Context, k K) (wctx context.Context, end func() (fenced bool), ok bool) {
	name := w.key(k)
	wctx, cancel, v := w.s.start(ctx, name, func() { w.park(k) })
	if v != started {
		return nil, nil, false
	}
	return wctx, func() bool {
		cancel(nil)
		return w.s.finish(name, wctx)
	}, true
}

// park records k as owned but not startable.
func (w *Work[K]) park(k K) {
	w.mu.Lock()
	w.parked[k] = struct{}{}
	w.mu.Unlock()
}

// unpark adds the parked keys to the queue again.
func (w *Work[K]) unpark() {
	w.mu.Lock()
	parked := w.parked
	w.parked = map[K]struct{}{}
	w.mu.Unlock()
	for k := range parked {
		w.add(k)
	}
}

// gained adds to the queue the keys of all owned under now but not under
// before, and forgets the parked keys not owned under now.
func (w *Work[K]) gained(before, now members) {
	id := w.s.identity
	w.mu.Lock()
	for k := range w.parked {
		if now.owner(w.key(k)) != id {
			delete(w.parked, k)
		}
	}
	w.mu.Unlock()
	for k := range w.all {
		if name := w.key(k); now.owner(name) == id && before.owner(name) != id {
			w.add(k)
		}
	}
}
