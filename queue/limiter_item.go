package queue

import (
	"sync"
	"time"
)

// TypedItemExponentialFailureRateLimiter delays each item twice as long as
// the previous time, from a base delay up to a maximum: the n-th When for an
// item since it was last forgotten returns base·2^(n-1), capped. It is safe
// for simultaneous use by multiple goroutines.
type TypedItemExponentialFailureRateLimiter[K comparable] struct {
	mu       sync.Mutex // guards failures
	failures counts[K]  // When calls per item since its last Forget

	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewTypedItemExponentialFailureRateLimiter returns an exponential limiter
// from baseDelay to maxDelay. Negative durations are treated as 0; a
// maxDelay below baseDelay caps every delay at maxDelay.
func NewTypedItemExponentialFailureRateLimiter[K comparable](baseDelay, maxDelay time.Duration) *TypedItemExponentialFailureRateLimiter[K] {
	return &TypedItemExponentialFailureRateLimiter[K]{
		baseDelay: max(baseDelay, 0),
		maxDelay:  max(maxDelay, 0),
	}
}

// When records a failure of item and returns its backoff.
func (r *TypedItemExponentialFailureRateLimiter[K]) When(item K) time.Duration {
	r.mu.Lock()
	n := r.failures.inc(item)
	r.mu.Unlock()
	return exponential(r.baseDelay, r.maxDelay, n)
}

func (r *TypedItemExponentialFailureRateLimiter[K]) whenAt(item K, _ time.Time) time.Duration {
	return r.When(item)
}

// exponential returns min(base·2^n, limit) without overflowing.
func exponential(base, limit time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	if n >= 63 || base > limit>>n {
		return limit
	}
	return base << n
}

// Forget clears the failures of item.
func (r *TypedItemExponentialFailureRateLimiter[K]) Forget(item K) {
	r.mu.Lock()
	r.failures.remove(item)
	r.mu.Unlock()
}

// NumRequeues returns the failures of item since it was last forgotten.
func (r *TypedItemExponentialFailureRateLimiter[K]) NumRequeues(item K) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures.get(item)
}

// TypedItemFastSlowRateLimiter retries each item quickly a few times, then
// slowly: its first maxFastAttempts delays are fastDelay, the following ones
// slowDelay. It is safe for simultaneous use by multiple goroutines.
type TypedItemFastSlowRateLimiter[K comparable] struct {
	mu       sync.Mutex // guards failures
	failures counts[K]  // When calls per item since its last Forget

	fastDelay       time.Duration
	slowDelay       time.Duration
	maxFastAttempts int
}

// NewTypedItemFastSlowRateLimiter returns a fast-slow limiter. Negative
// durations and a negative maxFastAttempts are treated as 0.
func NewTypedItemFastSlowRateLimiter[K comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) *TypedItemFastSlowRateLimiter[K] {
	return &TypedItemFastSlowRateLimiter[K]{
		fastDelay:       max(fastDelay, 0),
		slowDelay:       max(slowDelay, 0),
		maxFastAttempts: max(maxFastAttempts, 0),
	}
}

// When records a failure of item and returns its delay.
func (r *TypedItemFastSlowRateLimiter[K]) When(item K) time.Duration {
	r.mu.Lock()
	n := r.failures.inc(item) + 1
	r.mu.Unlock()
	if n <= r.maxFastAttempts {
		return r.fastDelay
	}
	return r.slowDelay
}

func (r *TypedItemFastSlowRateLimiter[K]) whenAt(item K, _ time.Time) time.Duration {
	return r.When(item)
}

// Forget clears the failures of item.
func (r *TypedItemFastSlowRateLimiter[K]) Forget(item K) {
	r.mu.Lock()
	r.failures.remove(item)
	r.mu.Unlock()
}

// NumRequeues returns the failures of item since it was last forgotten.
func (r *TypedItemFastSlowRateLimiter[K]) NumRequeues(item K) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures.get(item)
}
