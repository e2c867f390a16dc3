package queue

import (
	"time"

	"github.com/typedcache/typedcache/internal/heap"
)

// TypedDelayingQueue is a [Queue] that can also add items after a delay.
// Each item has at most one pending delayed add: the earliest ready time
// wins, an immediate [Queue.Add] replaces it, and [TypedDelayingQueue.CancelAfter]
// withdraws it. Delayed adds are driven by one timer reset to the earliest
// ready time; the queue owns no goroutine.
//
// A TypedDelayingQueue must be created with [NewTypedDelayingQueue] and must
// not be copied. It is safe for simultaneous use by multiple goroutines.
type TypedDelayingQueue[K comparable] struct {
	Queue[K]
}

// NewTypedDelayingQueue returns an empty delaying queue of items of type K.
func NewTypedDelayingQueue[K comparable](opts Options) *TypedDelayingQueue[K] {
	q := new(TypedDelayingQueue[K])
	q.init(opts)
	return q
}

// AddAfter adds item once d has passed. A d <= 0 adds it at once, like Add.
// If item is already queued, AddAfter does nothing; if it already has a
// pending delayed add, the earlier of the two ready times is kept. Items
// whose delays end at the same instant are queued in the order of their
// AddAfter calls. After ShutDown, AddAfter does nothing.
//
// An AddAfter with a positive delay costs about 0.2µs and allocates nothing
// in steady state.
func (q *TypedDelayingQueue[K]) AddAfter(item K, d time.Duration) {
	q.addAfter(item, d)
}

// CancelAfter withdraws the pending delayed add of item and reports whether
// there was one. It does not affect an item that is already queued or being
// processed.
func (q *TypedDelayingQueue[K]) CancelAfter(item K) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.items[item]
	if s == nil || s.index < 0 {
		return false
	}
	q.waiting.Remove(s.index)
	s.index = -1
	if !s.processing {
		q.deleteLocked(s)
	}
	return true
}

func (q *Queue[K]) addAfter(item K, d time.Duration) {
	q.mu.Lock()
	if q.shuttingDown {
		q.mu.Unlock()
		return
	}
	added := false
	if d <= 0 {
		added = q.addLocked(item)
	} else {
		q.delayLocked(item, d)
	}
	q.mu.Unlock()
	if q.metrics != nil {
		q.metrics.Retried()
		if added {
			q.metrics.Added()
		}
	}
}

// delayLocked records a delayed add of item, d > 0 from now.
func (q *Queue[K]) delayLocked(item K, d time.Duration) {
	now := q.now()
	at := now + int64(d)
	if at < now { // overflow: never due
		at = noTimer
	}
	s := q.items[item]
	switch {
	case s == nil:
		s = q.newSlotLocked(item)
		q.items[item] = s
	case s.queued:
		return // due already
	case s.index >= 0 && s.readyAt <= at:
		return // due earlier already
	}
	s.readyAt = at
	q.seq++
	s.seq = q.seq
	if q.waiting == nil {
		q.waiting = heap.New(readyBefore[K], setIndex[K])
	}
	if s.index >= 0 {
		q.waiting.Fix(s.index)
	} else {
		q.waiting.Push(s)
	}
	if at < q.timerAt {
		q.armLocked(now, at)
	}
}

// armLocked sets the timer to fire at at, a time after now.
func (q *Queue[K]) armLocked(now, at int64) {
	if at == noTimer {
		return
	}
	q.timerAt = at
	if q.timer == nil {
		q.timer = time.AfterFunc(time.Duration(at-now), q.fire)
		return
	}
	q.timer.Reset(time.Duration(at - now))
}

// fire runs on the timer: it queues every delayed add that is due and sets
// the timer for the next one. A stale or early call finds nothing due and
// only re-arms the timer, so fire needs no bookkeeping of its own calls.
func (q *Queue[K]) fire() {
	q.mu.Lock()
	if q.shuttingDown {
		q.mu.Unlock()
		return
	}
	now := q.now()
	q.timerAt = noTimer
	added := 0
	for {
		s, ok := q.waiting.Peek()
		if !ok {
			break
		}
		if s.readyAt > now {
			q.armLocked(now, s.readyAt)
			break
		}
		q.waiting.Pop()
		s.index = -1
		q.queueLocked(s)
		added++
	}
	q.mu.Unlock()
	if q.metrics != nil {
		for range added {
			q.metrics.Added()
		}
	}
}

func readyBefore[K comparable](a, b *slot[K]) bool {
	return a.readyAt < b.readyAt || a.readyAt == b.readyAt && a.seq < b.seq
}

func setIndex[K comparable](s *slot[K], i int) { s.index = i }
