package queue

import (
	"github.com/typedcache/typedcache/internal/heap"
	"github.com/typedcache/typedcache/internal/ring"
)

// slot is the state of one item. The flags combine as follows:
//
//	queued && !processing: in Queue.ready, waiting for a worker
//	queued && processing:  dirty, added again while a worker holds it
//	!queued && processing: held by a worker, nothing pending
//	wait != 0:             a delayed add is pending; never together with queued
type slot[K comparable] struct {
	item       K
	queued     bool
	processing bool
	next       int32  // the next free slot, or -1, while the slot is free
	wait       uint64 // the seq of the pending delayed add's waiter, or 0
	readyAt    int64  // when the pending delayed add is due, in Queue.now units
}

const (
	none       = -1      // no slot
	shrinkSize = 1 << 16 // an emptied queue with more slots than this frees them
)

// slotLocked returns item's slot, whose hash is given, creating and
// indexing one if item has none. It may grow the arena, which invalidates
// pointers into it.
func (q *Queue[K]) slotLocked(item K, hash uint32) int32 {
	id, _ := q.lookupLocked(item, hash)
	if id == none {
		id = q.newSlotLocked(item)
		q.insertLocked(hash, id)
	}
	return id
}

// newSlotLocked returns a fresh slot for item. It may grow the arena, which
// invalidates pointers into it.
func (q *Queue[K]) newSlotLocked(item K) int32 {
	id := q.free
	if id == none {
		id = int32(len(q.slots)) // an arena of 2³¹ slots would not fit in memory
		q.slots = append(q.slots, slot[K]{})
	} else {
		q.free = q.slots[id].next
	}
	q.slots[id] = slot[K]{item: item, next: none}
	if q.metrics != nil {
		if int(id) == len(q.timings) {
			q.timings = append(q.timings, timing{})
		}
		q.timings[id] = timing{prev: none, next: none}
	}
	return id
}

// deleteLocked forgets slot id, whose index entry is at pos and which must
// be neither queued, processing nor waiting, and keeps it for reuse. When
// the queue becomes empty the arena is reset, and released if it is large.
func (q *Queue[K]) deleteLocked(id int32, pos int) {
	q.index.removeAt(pos)
	q.slots[id] = slot[K]{next: q.free}
	q.free = id
	if q.index.count == 0 {
		q.free = none
		if q.waiting != nil { // only stale waiters are left
			q.waiting.Clear()
			q.stale = 0
		}
		if len(q.slots) > shrinkSize {
			q.slots, q.timings, q.index.entries = nil, nil, nil
			q.ready = ring.Ring[int32]{}
			if q.waiting != nil {
				q.waiting = heap.New(readyBefore, nil)
			}
			return
		}
		q.slots, q.timings = q.slots[:0], q.timings[:0]
	}
}
