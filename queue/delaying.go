package queue

import (
	"slices"
	"time"
)

// TypedDelayingQueue is a [Queue] that can also add items after a delay.
// Each item has at most one pending delayed add: the earliest ready time
// wins, an immediate [Queue.Add] replaces it, and [TypedDelayingQueue.CancelAfter]
// withdraws it. Delayed adds are driven by one timer reset to the earliest
// ready time; the queue owns no goroutine.
//
// A TypedDelayingQueue must be created with [NewTypedDelayingQueue] (a
// zero one panics as a zero [Queue] does) and must not be copied. It is
// safe for simultaneous use by multiple goroutines.
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
// In a [TypedPriorityQueue], the add keeps the priority item has in the
// queue (queued, waiting or being processed), or is at [PriorityNormal]
// if the queue does not hold item.
//
// An AddAfter with a positive delay allocates nothing in steady state.
func (q *TypedDelayingQueue[K]) AddAfter(item K, d time.Duration) {
	q.addAfter(item, d, addRank{keep: true})
}

// CancelAfter withdraws the pending delayed add of item and reports whether
// there was one. It does not affect an item that is already queued or being
// processed.
func (q *TypedDelayingQueue[K]) CancelAfter(item K) bool {
	hash := q.hash(item)
	q.mu.Lock()
	defer q.mu.Unlock()
	id := q.lookupLocked(item, hash)
	if id == none || q.waitLocked(id) == 0 {
		return false
	}
	q.withdrawLocked(id)
	if !q.slots[id].processing {
		q.deleteLocked(id)
	}
	return true
}

func (q *Queue[K]) addAfter(item K, d time.Duration, a addRank) {
	var now int64
	if d > 0 {
		now = q.now()
	}
	q.addAfterAt(item, d, now, a)
}

// addAfterAt adds item d after now, which is read only if d > 0, at the
// priority a gives.
func (q *Queue[K]) addAfterAt(item K, d time.Duration, now int64, a addRank) {
	hash := q.hash(item)
	q.mu.Lock()
	if q.shuttingDown {
		q.mu.Unlock()
		return
	}
	added := 0
	if d <= 0 {
		if q.addLocked(item, hash, a) {
			added = 1
		}
	} else {
		q.delayLocked(item, hash, now, d, a)
		// Queue what is due now rather than wait for the timer, which may
		// be slow to get the lock while adds stream in.
		added = q.promoteLocked(now)
	}
	q.mu.Unlock()
	if q.metrics != nil {
		q.metrics.Retried()
		q.reportAdded(added)
	}
}

// delayLocked records a delayed add of item, whose hash is given, d > 0
// after now, at the priority a gives.
func (q *Queue[K]) delayLocked(item K, hash uint32, now int64, d time.Duration, a addRank) {
	at := now + int64(d)
	if at < now { // overflow: never due
		at = noTimer
	}
	id := q.slotLocked(item, hash)
	q.rerankLocked(id, a)
	if n := len(q.delays); int(id) >= n {
		q.delays = slices.Grow(q.delays, cap(q.slots)-n)[:len(q.slots)]
		clear(q.delays[n:])
	}
	pd := &q.delays[id]
	switch {
	case q.slots[id].queued:
		return // due already
	case pd.wait != 0 && pd.readyAt <= at:
		return // due earlier already
	}
	if pd.wait != 0 {
		q.withdrawLocked(id)
	}
	q.seq++
	pd.wait, pd.readyAt = q.seq, at
	q.waiting.push(waiter{at: at, seq: q.seq, id: id})
	if at < q.timerAt-int64(timerSlack) {
		q.armLocked(at)
	}
}

// noTimer is the time of a stopped timer, and of a delayed add too far
// ahead to represent: never.
const noTimer = int64(^uint64(0) >> 1) // math.MaxInt64

// timerSlack is how late the timer may fire for a delayed add, so that a
// burst of adds due microseconds apart is queued by a few timer calls
// instead of one each.
const timerSlack = 100 * time.Microsecond

// armLocked sets the timer to fire at at; noTimer means never.
func (q *Queue[K]) armLocked(at int64) {
	if at == noTimer {
		return
	}
	q.timerAt = at
	d := time.Duration(at - q.now())
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.fire)
		return
	}
	q.timer.Reset(d)
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
	added := q.promoteLocked(now)
	if q.waiting.len() > 0 {
		q.armLocked(max(q.waiting.top().at, now+int64(timerSlack)))
	}
	q.mu.Unlock()
	q.reportAdded(added)
}

// promoteLocked queues the delayed adds due at now, dropping the stale
// waiters it meets, and returns how many it queued. Afterwards the top of
// the heap, if any, is pending and not due.
func (q *Queue[K]) promoteLocked(now int64) int {
	n := 0
	for q.waiting.len() > 0 {
		w := q.waiting.top()
		pending := q.pendingLocked(w)
		if pending && w.at > now {
			break
		}
		q.waiting.pop()
		if !pending {
			q.stale--
			continue
		}
		q.delays[w.id].wait = 0
		q.queueLocked(w.id, w.at)
		n++
	}
	return n
}

// waiter is an entry of the waiting heap. It carries its ordering key so
// that comparisons do not touch the slot arena.
type waiter struct {
	at  int64  // ready time, in Queue.now units
	seq uint64 // unique; orders the AddAfter calls, for equal ready times
	id  int32  // the slot
}

// waitLocked returns the seq of the pending delayed add of slot id, or 0
// if it has none.
func (q *Queue[K]) waitLocked(id int32) uint64 {
	if int(id) >= len(q.delays) {
		return 0 // never delayed since the arena grew to it
	}
	return q.delays[id].wait
}

// pendingLocked reports whether w is its slot's pending delayed add. The
// slot may have been freed, reused or released since w was pushed; seq
// tells.
func (q *Queue[K]) pendingLocked(w waiter) bool {
	return int(w.id) < len(q.delays) && q.delays[w.id].wait == w.seq
}

// withdrawLocked cancels the pending delayed add of slot id, leaving its
// waiter stale, and compacts the heap when stale waiters are the majority,
// so that they cost O(log n) each, amortized, and never outnumber live ones
// by much.
func (q *Queue[K]) withdrawLocked(id int32) {
	q.delays[id].wait = 0
	q.stale++
	if q.stale < minCompact || 2*q.stale < q.waiting.len() {
		return
	}
	q.waiting.filter(q.pendingLocked)
	q.stale = 0
}

const minCompact = 64 // stale waiters tolerated whatever the heap size
