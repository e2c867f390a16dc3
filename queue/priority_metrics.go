package queue

import (
	"cmp"
	"slices"
	"time"
)

// PriorityDepth is the part of a [TypedPriorityQueue]'s depth at one
// priority, in a [MetricsSnapshot].
type PriorityDepth struct {
	Priority Priority
	// Depth is the number of items queued at Priority: ready for a worker,
	// or added again while a worker holds them.
	Depth int
	// Oldest is how long the item queued longest at Priority has been
	// queued; zero if Depth is.
	Oldest time.Duration
}

// priorityDepthsLocked returns the depth of a priority queue by priority,
// highest first: PriorityNormal and PriorityLow always, other priorities
// while they have queued items. It walks the ready heap and the items
// being processed, and reads the metrics' times, so the queue must have
// metrics.
func (q *Queue[K]) priorityDepthsLocked(now int64) []PriorityDepth {
	ds := []PriorityDepth{{Priority: PriorityNormal}, {Priority: PriorityLow}}
	count := func(id int32) {
		p, age := q.rk.ranks[id].prio, time.Duration(now-q.timings[id].addedAt)
		i := slices.IndexFunc(ds, func(d PriorityDepth) bool { return d.Priority == p })
		if i < 0 {
			i = len(ds)
			ds = append(ds, PriorityDepth{Priority: p})
		}
		ds[i].Depth++
		ds[i].Oldest = max(ds[i].Oldest, age)
	}
	for _, w := range q.rk.heap.w {
		if q.rk.live(w) {
			count(w.id)
		}
	}
	for id := q.inFlight.head; id != none; id = q.timings[id].next {
		if q.slots[id].queued { // dirty
			count(id)
		}
	}
	slices.SortFunc(ds, func(a, b PriorityDepth) int { return cmp.Compare(b.Priority, a.Priority) })
	return ds
}
