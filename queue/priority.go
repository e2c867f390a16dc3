package queue

import (
	"context"
	"time"
)

// Priority orders the items of a [TypedPriorityQueue]: higher is served
// first, and waiting makes up for it (see [PriorityOptions.Aging]).
type Priority int

const (
	// PriorityLow is for work that only confirms the state: the adds of
	// an informer's initial list and its resyncs.
	PriorityLow Priority = -100
	// PriorityNormal is for live changes, and the priority of Add.
	PriorityNormal Priority = 0
)

// DefaultAging is the aging of a [TypedPriorityQueue] whose
// [PriorityOptions.Aging] is zero: a [PriorityLow] item waits at most 100s
// longer than a [PriorityNormal] one added at the same time.
const DefaultAging = time.Second

// PriorityOptions holds the optional settings of a [TypedPriorityQueue].
// The zero value is [Options]' zero value with [DefaultAging].
type PriorityOptions struct {
	Options

	// Aging is how much waiting one unit of priority is worth: an item of
	// priority p that became ready at time t is handed out as if it had
	// become ready at t − p·Aging, so an item waiting at a priority p₂
	// overtakes every item of a higher priority p₁ that becomes ready more
	// than (p₁ − p₂)·Aging after it. Zero or negative means
	// [DefaultAging].
	Aging time.Duration
}

// AddOptions says how [TypedPriorityQueue.AddWithOptions] adds an item.
// The zero value adds it now at [PriorityNormal].
type AddOptions struct {
	// Priority is the item's priority. An item already queued or waiting
	// keeps the higher of its priority and this one; a queued item that is
	// raised is raised at once, even with After or RateLimited (see
	// [TypedPriorityQueue.AddWithOptions]).
	Priority Priority
	// After, if positive, adds the item once this delay has passed, as
	// AddAfter does.
	After time.Duration
	// RateLimited adds the item after the delay the queue's rate limiter
	// returns for it, as AddRateLimited does; with a positive After too,
	// the shorter of the two delays applies.
	RateLimited bool
}

// TypedPriorityQueue is a [TypedRateLimitingQueue] that hands out items by
// priority and age instead of in FIFO order: each ready item is due at
// its virtual deadline, the time it became ready minus its priority times
// [PriorityOptions.Aging], and the earliest deadline goes first, so that
// no item starves. Items of equal priority keep FIFO order, and items due
// at the same instant go in the order they got that deadline. See the
// package documentation for the rules and the bound on an item's wait.
//
// Its other methods are those of [TypedRateLimitingQueue]: Add adds at
// [PriorityNormal]; AddAfter, AddRateLimited and the retries and requeues
// of Run keep the item's priority; Get, Done, Len, CancelAfter, Forget,
// NumRequeues and the shutdown methods work as in every queue.
//
// A TypedPriorityQueue must be created with [NewTypedPriorityQueue] and
// must not be copied; a zero one panics, with a message naming the
// constructors, at the first call that needs its state, and its Run
// returns that message as an error. It is safe for simultaneous use by
// multiple goroutines.
type TypedPriorityQueue[K comparable] struct {
	TypedRateLimitingQueue[K]
}

// NewTypedPriorityQueue returns an empty priority queue of items of type K
// whose AddRateLimited delays come from limiter. A nil limiter means
// [DefaultTypedControllerRateLimiter].
func NewTypedPriorityQueue[K comparable](limiter TypedRateLimiter[K], opts PriorityOptions) *TypedPriorityQueue[K] {
	q := new(TypedPriorityQueue[K])
	q.setLimiter(limiter)
	q.rk.on = true
	q.rk.aging = int64(opts.Aging)
	if opts.Aging <= 0 {
		q.rk.aging = int64(DefaultAging)
	}
	q.init(opts.Options)
	return q
}

// AddWithOptions adds item at o.Priority, now or after a delay. Duplicates
// collapse as they do for Add and AddAfter: an item has one pending add,
// at the highest of the priorities and the earliest of the ready times
// asked for. A queued item is ready already, so a delay does not apply to
// it: raised to a higher o.Priority, it is due at the earlier of its
// deadline and the one an immediate add would give it, and never waits
// behind its old priority for the delay. An item being processed, with no
// pending add, is added at o.Priority, whatever its priority was, after
// the delay; one added again while processing runs at Done at the higher
// priority. After ShutDown, AddWithOptions does nothing.
func (q *TypedPriorityQueue[K]) AddWithOptions(item K, o AddOptions) {
	a := addRank{prio: o.Priority}
	if !o.RateLimited {
		if o.After <= 0 {
			q.add(item, a)
			return
		}
		q.addAfter(item, o.After, a)
		return
	}
	now, d := q.when(item)
	if o.After > 0 && o.After < d {
		d = o.After
	}
	q.addAfterAt(item, d, now, a)
}

// GetWithPriority is Get that also returns the priority item was handed
// out at.
func (q *TypedPriorityQueue[K]) GetWithPriority(ctx context.Context) (K, Priority, error) {
	return q.take(ctx, false)
}
