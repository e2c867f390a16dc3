package queue

import (
	"slices"

	"github.com/typedcache/typedcache/internal/ring"
)

// slot is the state of one item. The flags combine as follows:
//
//	queued && !processing: ready (in Queue.ready or Queue.rk), waiting for a worker
//	queued && processing:  dirty, added again while a worker holds it
//	!queued && processing: held by a worker, nothing pending
//
// A slot holds only what every queue needs, so that a string item's slot
// takes 32 bytes and never straddles two cache lines; the state of delayed
// adds lives in the parallel Queue.delays.
type slot[K comparable] struct {
	item       K
	hash       uint32 // the item's hash in the index
	next       int32  // the next free slot, or -1, while the slot is free
	used       bool   // the slot holds an item; index entries of unused slots are stale
	queued     bool
	processing bool
}

// delay is the delayed-add state of a slot. A pending delayed add is never
// together with queued.
type delay struct {
	wait    uint64 // the seq of the pending delayed add's waiter, or 0
	readyAt int64  // when the pending delayed add is due, in Queue.now units
}

const (
	none       = -1      // no slot
	shrinkSize = 1 << 16 // an emptied queue with more slots than this frees them
)

// slotLocked returns item's slot, whose hash is given, creating and
// indexing one if item has none. It may grow the arena, which invalidates
// pointers into it.
func (q *Queue[K]) slotLocked(item K, hash uint32) int32 {
	id := q.lookupLocked(item, hash)
	if id == none {
		id = q.newSlotLocked(item, hash)
		q.insertLocked(hash, id)
	}
	return id
}

// newSlotLocked returns a fresh slot for item, whose hash is given. It may
// grow the arena, which invalidates pointers into it.
func (q *Queue[K]) newSlotLocked(item K, hash uint32) int32 {
	id := q.free
	if id == none {
		id = int32(len(q.slots)) // an arena of 2³¹ slots would not fit in memory
		q.slots = append(grown(q.slots), slot[K]{})
	} else {
		q.free = q.slots[id].next
	}
	q.slots[id] = slot[K]{item: item, hash: hash, next: none, used: true}
	if q.metrics != nil {
		if int(id) == len(q.timings) {
			q.timings = append(grown(q.timings), timing{})
		}
		q.timings[id] = timing{prev: none, next: none}
	}
	if q.rk.on {
		if int(id) == len(q.rk.ranks) {
			q.rk.ranks = append(grown(q.rk.ranks), rank{})
		}
		q.rk.ranks[id] = rank{prio: PriorityNormal}
	}
	return id
}

// grown returns s with room for one more element: s itself, or a copy
// with twice the capacity. append alone grows a large slice by a quarter
// at a time, copying a queue's arrays several times over while a burst
// of adds fills them; doubling copies them about once.
func grown[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), minGrow))
}

// minGrow is the least capacity grown adds.
const minGrow = 8

// deleteLocked forgets slot id, which must be neither queued, processing
// nor waiting, and keeps it for reuse. Its index entry goes stale and is
// removed later, with others (see itemIndex.unlink). When the queue becomes
// empty the index is emptied and the arena reset, and released if it is
// large.
func (q *Queue[K]) deleteLocked(id int32) {
	q.index.unlink(entry{hash: q.slots[id].hash, id: id + 1})
	q.slots[id] = slot[K]{next: q.free}
	q.free = id
	if q.index.count == len(q.index.pending) { // no item left
		q.index.flush()
		q.free = none
		release := len(q.slots) > shrinkSize
		q.waiting.clear(release) // only stale waiters are left
		q.rk.heap.clear(release) // likewise
		q.stale, q.rk.stale = 0, 0
		if release {
			q.slots, q.timings, q.delays, q.rk.ranks, q.index.entries = nil, nil, nil, nil, noEntries
			q.ready = ring.Ring[int32]{}
			q.index.pending = nil
			return
		}
		q.slots, q.timings, q.delays, q.rk.ranks = q.slots[:0], q.timings[:0], q.delays[:0], q.rk.ranks[:0]
	}
}
