package queue

import (
	"time"

	"golang.org/x/time/rate"
)

// TypedRateLimiter decides how long an item waits before it is retried.
// client-go's workqueue.TypedRateLimiter[K] has the same method set, so its
// limiters can be used here unchanged.
type TypedRateLimiter[K comparable] interface {
	// When returns how long item should wait before its next attempt, and
	// records the attempt.
	When(item K) time.Duration
	// Forget stops tracking item, typically because it succeeded or was
	// given up; its next When starts afresh.
	Forget(item K)
	// NumRequeues returns how many attempts have been recorded for item
	// since it was last forgotten.
	NumRequeues(item K) int
}

// clockedLimiter is a [TypedRateLimiter] that can be told the current time,
// so that AddRateLimited reads the clock once for the limiter and the queue
// together. The built-in limiters implement it.
type clockedLimiter[K comparable] interface {
	TypedRateLimiter[K]
	// whenAt is When at time now.
	whenAt(item K, now time.Time) time.Duration
}

// clocked returns l as a clockedLimiter, or nil if it is not one.
func clocked[K comparable](l TypedRateLimiter[K]) clockedLimiter[K] {
	c, _ := l.(clockedLimiter[K])
	return c
}

// DefaultTypedControllerRateLimiter returns the limiter client-go's
// controllers use: the larger of a per-item exponential backoff from 5ms to
// 1000s and an overall token bucket of 10 retries per second with bursts of
// 100.
func DefaultTypedControllerRateLimiter[K comparable]() *TypedMaxOfRateLimiter[K] {
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[K](5*time.Millisecond, 1000*time.Second),
		NewTypedBucketRateLimiter[K](10, 100),
	)
}

// DefaultTypedItemBasedRateLimiter returns a per-item exponential backoff
// from 1ms to 1000s, client-go's item-based default.
func DefaultTypedItemBasedRateLimiter[K comparable]() *TypedItemExponentialFailureRateLimiter[K] {
	return NewTypedItemExponentialFailureRateLimiter[K](time.Millisecond, 1000*time.Second)
}

// TypedBucketRateLimiter limits retries of all items together with a token
// bucket. It tracks no item, so Forget does nothing and NumRequeues is 0.
// It is safe for simultaneous use by multiple goroutines.
type TypedBucketRateLimiter[K comparable] struct {
	// Limiter is the token bucket; each When reserves one token. A nil
	// Limiter never delays. A Limiter that can never grant a token (burst 0,
	// finite rate) makes When return [rate.InfDuration], as in client-go.
	Limiter *rate.Limiter
}

// NewTypedBucketRateLimiter returns a bucket limiter refilled at qps tokens
// per second holding at most burst tokens (at least 1).
func NewTypedBucketRateLimiter[K comparable](qps rate.Limit, burst int) *TypedBucketRateLimiter[K] {
	return &TypedBucketRateLimiter[K]{Limiter: rate.NewLimiter(qps, max(burst, 1))}
}

// When reserves a token and returns how long until it is available.
func (r *TypedBucketRateLimiter[K]) When(item K) time.Duration {
	return r.whenAt(item, time.Now())
}

func (r *TypedBucketRateLimiter[K]) whenAt(_ K, now time.Time) time.Duration {
	if r.Limiter == nil {
		return 0
	}
	return r.Limiter.ReserveN(now, 1).DelayFrom(now)
}

// Forget does nothing: tokens are never returned.
func (r *TypedBucketRateLimiter[K]) Forget(K) {}

// NumRequeues returns 0: the bucket does not track items.
func (r *TypedBucketRateLimiter[K]) NumRequeues(K) int { return 0 }

// TypedMaxOfRateLimiter combines limiters by taking the longest delay. Every
// limiter is consulted on each When, so a token bucket spends a token even
// when another limiter's delay is longer.
type TypedMaxOfRateLimiter[K comparable] struct {
	limiters []TypedRateLimiter[K]
	clocked  []clockedLimiter[K] // parallel to limiters; nil where one is not clocked
}

// NewTypedMaxOfRateLimiter returns a limiter whose delay is the longest of
// those of limiters. Nil limiters are ignored; with none left, When
// returns 0.
func NewTypedMaxOfRateLimiter[K comparable](limiters ...TypedRateLimiter[K]) *TypedMaxOfRateLimiter[K] {
	r := &TypedMaxOfRateLimiter[K]{}
	for _, l := range limiters {
		if l != nil {
			r.limiters = append(r.limiters, l)
			r.clocked = append(r.clocked, clocked(l))
		}
	}
	return r
}

// When consults every limiter and returns the longest delay.
func (r *TypedMaxOfRateLimiter[K]) When(item K) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(item))
	}
	return d
}

func (r *TypedMaxOfRateLimiter[K]) whenAt(item K, now time.Time) time.Duration {
	var d time.Duration
	for i, c := range r.clocked {
		if c != nil {
			d = max(d, c.whenAt(item, now))
		} else {
			d = max(d, r.limiters[i].When(item))
		}
	}
	return d
}

// Forget forgets item in every limiter.
func (r *TypedMaxOfRateLimiter[K]) Forget(item K) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count of the limiters.
func (r *TypedMaxOfRateLimiter[K]) NumRequeues(item K) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

// TypedWithMaxWaitRateLimiter caps the delays of another limiter.
type TypedWithMaxWaitRateLimiter[K comparable] struct {
	limiter  TypedRateLimiter[K]
	clocked  clockedLimiter[K] // limiter, if it is clocked
	maxDelay time.Duration
}

// NewTypedWithMaxWaitRateLimiter returns a limiter that returns the delays of
// limiter, capped at maxDelay. A nil limiter means
// [DefaultTypedControllerRateLimiter]; a negative maxDelay is treated as 0.
func NewTypedWithMaxWaitRateLimiter[K comparable](limiter TypedRateLimiter[K], maxDelay time.Duration) *TypedWithMaxWaitRateLimiter[K] {
	if limiter == nil {
		limiter = DefaultTypedControllerRateLimiter[K]()
	}
	return &TypedWithMaxWaitRateLimiter[K]{limiter: limiter, clocked: clocked(limiter), maxDelay: max(maxDelay, 0)}
}

// When returns the wrapped limiter's delay, at most the maximum.
func (r *TypedWithMaxWaitRateLimiter[K]) When(item K) time.Duration {
	return min(r.limiter.When(item), r.maxDelay)
}

func (r *TypedWithMaxWaitRateLimiter[K]) whenAt(item K, now time.Time) time.Duration {
	if r.clocked == nil {
		return r.When(item)
	}
	return min(r.clocked.whenAt(item, now), r.maxDelay)
}

// Forget forgets item in the wrapped limiter.
func (r *TypedWithMaxWaitRateLimiter[K]) Forget(item K) { r.limiter.Forget(item) }

// NumRequeues returns the wrapped limiter's count.
func (r *TypedWithMaxWaitRateLimiter[K]) NumRequeues(item K) int {
	return r.limiter.NumRequeues(item)
}
