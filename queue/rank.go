package queue

import "math"

// ranking orders the ready slots of a [TypedPriorityQueue] by virtual
// deadline: a slot of priority p ready since t is due at t − p·aging, and
// the earliest deadline is handed out first (see the package
// documentation). Queues of the other kinds leave it off and use
// Queue.ready.
type ranking struct {
	on    bool
	aging int64 // the wait one unit of priority is worth, in nanoseconds

	// heap holds the ready slots by deadline, plus stale entries: when an
	// add gives a ready slot an earlier deadline, the slot gets a new
	// entry, with a new seq, and the old one goes stale (its seq no longer
	// matches the slot's); stale entries are skipped when they surface and
	// compacted away when they are the majority, as Queue.waiting's are.
	heap  waitHeap
	ranks []rank // parallel to Queue.slots
	ready int    // live entries of heap: the ready slots
	stale int    // stale entries of heap
}

// rank is the priority state of one slot of a TypedPriorityQueue.
type rank struct {
	// prio is the priority of the slot's pending add (queued or waiting),
	// or, while it is processing with none, the one it was handed out at.
	prio Priority
	at   int64  // the deadline of the slot's heap entry while it is ready
	seq  uint64 // the seq of the slot's heap entry while it is ready, else 0
}

// live reports whether w is the heap entry of its slot.
func (x *ranking) live(w waiter) bool {
	return x.ranks[w.id].seq == w.seq
}

// addRank is the priority an add gives its item.
type addRank struct {
	prio Priority
	// keep, if set, keeps the priority the item has in the queue, or
	// gives PriorityNormal to an item the queue does not hold; prio is
	// unused.
	keep bool
}

// readyNow asks queueLocked and pushReadyLocked to read the clock.
const readyNow = -1

// readyLen returns the number of ready slots.
func (q *Queue[K]) readyLen() int {
	if q.rk.on {
		return q.rk.ready
	}
	return q.ready.Len()
}

// pushReadyLocked makes slot id, queued and not processing, ready since at
// (readyNow: now), due at its deadline, and wakes a Get.
func (q *Queue[K]) pushReadyLocked(id int32, at int64) {
	if !q.rk.on {
		q.ready.Push(id)
		q.cond.Signal()
		return
	}
	if at == readyNow {
		at = q.now()
	}
	q.rankLocked(id, deadline(at, q.rk.ranks[id].prio, q.rk.aging))
	q.rk.ready++
	q.cond.Signal()
}

// rankLocked gives ready slot id the deadline at, and a heap entry that
// comes after those of the slots already due at the same time.
func (q *Queue[K]) rankLocked(id int32, at int64) {
	q.seq++
	r := &q.rk.ranks[id]
	r.at, r.seq = at, q.seq
	q.rk.heap.push(waiter{at: at, seq: q.seq, id: id})
}

// popReadyLocked removes the next ready slot and returns it with its
// priority. There must be one.
func (q *Queue[K]) popReadyLocked() (int32, Priority) {
	if !q.rk.on {
		id, _ := q.ready.Pop()
		return id, PriorityNormal
	}
	for {
		w := q.rk.heap.pop()
		if !q.rk.live(w) {
			q.rk.stale--
			continue
		}
		r := &q.rk.ranks[w.id]
		r.seq = 0
		q.rk.ready--
		return w.id, r.prio
	}
}

// rerankLocked gives slot id the priority of an add a, before the add
// changes its state: the higher of its pending add's and a's, or a's if it
// has no pending add. A ready slot whose priority rises is due at the
// earlier of its deadline and the one an immediate add at the new priority
// would give it, whatever the add's delay (the slot is ready already, and
// the earliest ready time wins): it keeps a deadline it earned by waiting,
// and otherwise goes behind the items of its new priority due before now.
func (q *Queue[K]) rerankLocked(id int32, a addRank) {
	if !q.rk.on || a.keep {
		return
	}
	r, s := &q.rk.ranks[id], &q.slots[id]
	if !s.queued && q.waitLocked(id) == 0 {
		r.prio = a.prio
		return
	}
	if a.prio <= r.prio {
		return
	}
	r.prio = a.prio
	if !s.queued || s.processing {
		return
	}
	if at := deadline(q.now(), r.prio, q.rk.aging); at < r.at {
		q.rankLocked(id, at)
		q.rk.stale++
		q.compactRanksLocked()
	}
}

// compactRanksLocked drops the stale heap entries once they are the
// majority, so that they cost O(log n) each, amortized.
func (q *Queue[K]) compactRanksLocked() {
	x := &q.rk
	if x.stale < minCompact || 2*x.stale < x.heap.len() {
		return
	}
	x.heap.filter(x.live)
	x.stale = 0
}

// deadline returns since − p·aging, the deadline of an item of priority p
// ready since since, saturated to the int64 range, so that
// no priority or setting can wrap the order around.
func deadline(since int64, p Priority, aging int64) int64 {
	if p == 0 {
		return since
	}
	pp := int64(p)
	if pp > math.MaxInt64/aging || pp < math.MinInt64/aging {
		if pp > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	shift := pp * aging
	switch {
	case shift > 0 && since < math.MinInt64+shift:
		return math.MinInt64
	case shift < 0 && since > math.MaxInt64+shift:
		return math.MaxInt64
	}
	return since - shift
}
