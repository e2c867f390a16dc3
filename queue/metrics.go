package queue

import "time"

// Metrics records the events of one queue, created for it by
// [Options.Metrics]. The queue calls its methods after releasing its lock,
// possibly from many goroutines at once, so implementations must be safe
// for simultaneous use and should be cheap: they run on every Add, Get and
// Done.
//
// The measurements map onto client-go's workqueue metrics as follows:
// adds is the number of [Metrics.Added] calls, latency is the duration
// passed to [Metrics.Started], work duration the one passed to
// [Metrics.Finished], retries the number of [Metrics.Retried] calls, and
// depth, unfinished work and longest running processor are read from
// [MetricsSnapshot] when the metrics are collected. [Metrics.Processed]
// has no client-go counterpart: it counts what Run did with each item, as
// controller-runtime's reconcile_total, reconcile_errors_total and
// terminal_reconcile_errors_total do, and the items it gave up on.
type Metrics interface {
	// Added is called each time an item that was not queued becomes queued,
	// including by a delayed add that comes due.
	Added()
	// Started is called each time Get hands out an item, with the time the
	// item spent queued.
	Started(queued time.Duration)
	// Finished is called each time Done ends the processing of an item, with
	// the time since Get handed it out.
	Finished(worked time.Duration)
	// Retried is called for every AddAfter and AddRateLimited made before
	// shutdown, whatever their delay.
	Retried()
	// Processed is called once for every item a worker started by
	// [TypedRateLimitingQueue.Run] processed, after Done, with what Run
	// did with it.
	Processed(o Outcome)
}

// MetricsProvider creates the [Metrics] of a queue: the type of
// [Options.Metrics]. It is called once, by the queue's constructor, with
// [Options.Name] and a function that returns the queue's current gauges.
// A metrics exporter's method with this signature, such as the Queue method
// of the module github.com/typedcache/typedcache/prometheus's Provider, is
// one:
//
//	q := queue.New[string](queue.Options{Name: "foos", Metrics: provider.Queue})
type MetricsProvider func(name string, snapshot func() MetricsSnapshot) Metrics

// MetricsSnapshot holds a queue's gauges at one instant.
type MetricsSnapshot struct {
	// Depth is the number of items queued: ready for a worker, or added again
	// while a worker holds them.
	Depth int
	// Processing is the number of items handed out by Get and not yet Done.
	Processing int
	// UnfinishedWork is the sum, over the items being processed, of the time
	// since Get handed them out.
	UnfinishedWork time.Duration
	// LongestRunning is the longest of those times.
	LongestRunning time.Duration
	// Priorities breaks Depth down by priority, highest first, for a
	// [TypedPriorityQueue]: PriorityNormal and PriorityLow always, and
	// every other priority while it has queued items. It is nil for
	// the other queues.
	Priorities []PriorityDepth
}

// snapshot implements the snapshot function handed to Options.Metrics.
func (q *Queue[K]) snapshot() MetricsSnapshot {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	m := MetricsSnapshot{Depth: q.readyLen() + q.dirty, Processing: q.processing}
	if q.inFlight.head != none {
		m.LongestRunning = time.Duration(now - q.timings[q.inFlight.head].startedAt)
	}
	for id := q.inFlight.head; id != none; id = q.timings[id].next {
		m.UnfinishedWork += time.Duration(now - q.timings[id].startedAt)
	}
	if q.rk.on {
		m.Priorities = q.priorityDepthsLocked(now)
	}
	return m
}

// timing holds the times a slot needs for metrics.
type timing struct {
	addedAt   int64 // when the item was last queued, in Queue.now units
	startedAt int64 // when Get last handed it out
	// prev and next link a processing slot into Queue.inFlight; -1 ends
	// the list.
	prev, next int32
}

// slotList is a doubly linked list, through timing.prev and timing.next, of
// the slots being processed in the order Get handed them out, so its head
// has run longest.
type slotList struct {
	head, tail int32
}

func (q *Queue[K]) inFlightPushLocked(id int32) {
	l := &q.inFlight
	q.timings[id].prev, q.timings[id].next = l.tail, none
	if l.tail != none {
		q.timings[l.tail].next = id
	} else {
		l.head = id
	}
	l.tail = id
}

func (q *Queue[K]) inFlightRemoveLocked(id int32) {
	l, t := &q.inFlight, &q.timings[id]
	if t.prev != none {
		q.timings[t.prev].next = t.next
	} else {
		l.head = t.next
	}
	if t.next != none {
		q.timings[t.next].prev = t.prev
	} else {
		l.tail = t.prev
	}
	t.prev, t.next = none, none
}
