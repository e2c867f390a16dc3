package queue

import "time"

// TypedRateLimitingQueue is a [TypedDelayingQueue] whose items can be
// re-added after a delay chosen by a [TypedRateLimiter], the usual way for
// a controller to retry a failed item with backoff. [TypedRateLimitingQueue.Run]
// runs the worker loop of such a controller.
//
// A TypedRateLimitingQueue must be created with [NewTypedRateLimitingQueue]
// and must not be copied; a zero one panics, with a message naming the
// constructor, at the first call that needs its state, and its Run
// returns that message as an error. It is safe for simultaneous use by multiple
// goroutines.
type TypedRateLimitingQueue[K comparable] struct {
	TypedDelayingQueue[K]
	limiter TypedRateLimiter[K]
	clocked clockedLimiter[K] // limiter, if it is clocked
}

// NewTypedRateLimitingQueue returns an empty queue of items of type K whose
// AddRateLimited delays come from limiter. A nil limiter means
// [DefaultTypedControllerRateLimiter].
func NewTypedRateLimitingQueue[K comparable](limiter TypedRateLimiter[K], opts Options) *TypedRateLimitingQueue[K] {
	q := new(TypedRateLimitingQueue[K])
	q.setLimiter(limiter)
	q.init(opts)
	return q
}

// setLimiter sets the queue's limiter; nil means
// DefaultTypedControllerRateLimiter.
func (q *TypedRateLimitingQueue[K]) setLimiter(limiter TypedRateLimiter[K]) {
	if limiter == nil {
		limiter = DefaultTypedControllerRateLimiter[K]()
	}
	q.limiter, q.clocked = limiter, clocked(limiter)
}

// AddRateLimited adds item after the delay the rate limiter returns for it,
// as AddAfter(item, limiter.When(item)) does. The limiter is consulted, and
// counts a requeue, even when the add is then collapsed into an earlier one.
//
// In a [TypedPriorityQueue], the add keeps the item's priority, as
// AddAfter does.
//
// With [DefaultTypedControllerRateLimiter] a call allocates nothing in
// steady state, and the limiter and the queue share one reading of the
// clock.
func (q *TypedRateLimitingQueue[K]) AddRateLimited(item K) {
	now, d := q.when(item)
	q.addAfterAt(item, d, now, addRank{keep: true})
}

// when consults the limiter for item and returns the time, read once for
// the limiter and the queue where the limiter allows, and the delay.
func (q *TypedRateLimitingQueue[K]) when(item K) (now int64, d time.Duration) {
	if q.clocked == nil {
		q.mustHaveLimiter()
		d = q.limiter.When(item)
		if d > 0 {
			now = q.now()
		}
		return now, d
	}
	now = q.now()
	return now, q.clocked.whenAt(item, q.epoch.Add(time.Duration(now)))
}

// Forget tells the rate limiter to stop tracking item, resetting its
// backoff, typically after it was processed successfully. The item must
// still be marked Done.
func (q *TypedRateLimitingQueue[K]) Forget(item K) {
	q.mustHaveLimiter()
	q.limiter.Forget(item)
}

// NumRequeues returns the number of times the rate limiter has delayed item
// since it was last forgotten.
func (q *TypedRateLimitingQueue[K]) NumRequeues(item K) int {
	q.mustHaveLimiter()
	return q.limiter.NumRequeues(item)
}

// mustHaveLimiter panics with a message naming the constructor if q is a
// zero TypedRateLimitingQueue, which has no limiter.
func (q *TypedRateLimitingQueue[K]) mustHaveLimiter() {
	if q.limiter == nil {
		panic(notMade)
	}
}
