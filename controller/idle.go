package controller

import (
	"context"
	"time"

	"github.com/typedcache/typedcache/queue"
)

// WaitIdle blocks until the controller is idle and returns nil. It returns
// ctx.Err() if ctx ends first, and ErrStopped once Run has returned.
//
// The controller is idle when
//
//   - its watches have synced and its workers run (so the objects of the
//     initial lists are queued or done),
//   - no key is queued, including a key added again while it was being
//     reconciled,
//   - and no key is being processed: no reconcile is running, and the
//     worker of the last one has acted on its result (requeued it,
//     counted it, called Options.GiveUp).
//
// A key waiting for a delay (Result.RequeueAfter, or a retry's backoff)
// does not keep the controller busy until the queue's timer fires and
// queues it, nor does a key a sharded controller's ShardGate parked, until
// the gate adds it again. Nor does a change that the controller's handlers have not
// yet received: WaitIdle knows nothing of the informers' own buffers and
// of the source. In a testing/synctest bubble, call synctest.Wait first,
// so that every change made has reached the queue; WaitIdle waits on a
// sync.Cond, which synctest sees as durably blocked.
func (c *Controller[K]) WaitIdle(ctx context.Context) error {
	if c.queue == nil {
		return errZero
	}
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		switch {
		case c.stopped:
			return ErrStopped
		case c.idleLocked():
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
		c.cond.Wait()
	}
}

// idleLocked reports whether the controller is idle. Requires mu held.
//
// Every key the workers take is counted by the queue's Processing from
// Get to Done, in the same lock as it leaves Depth, and by reconciling
// from before Done until the queue reports it processed, the last thing
// its worker does: it is never out of all three.
func (c *Controller[K]) idleLocked() bool {
	if !c.working || c.reconciling > 0 {
		return false
	}
	s := c.snapshot()
	return s.Depth == 0 && s.Processing == 0
}

// queueMetrics returns the queue.Options.Metrics of the controller's
// queue: it keeps the queue's snapshot for idleLocked, and records the
// end of each key's processing, passing every call on to user's metrics
// if set.
func (c *Controller[K]) queueMetrics(user queue.MetricsProvider) queue.MetricsProvider {
	return func(name string, snapshot func() queue.MetricsSnapshot) queue.Metrics {
		c.snapshot = snapshot
		r := idleRecorder{done: c.processed}
		if user != nil {
			r.next = user(name, snapshot)
		}
		return r
	}
}

// processed records that a worker is done with a key, and wakes WaitIdle.
func (c *Controller[K]) processed() {
	c.mu.Lock()
	c.reconciling--
	c.cond.Broadcast()
	c.mu.Unlock()
}

// idleRecorder is the queue.Metrics of a controller's queue.
type idleRecorder struct {
	done func()
	next queue.Metrics // nil without Options.QueueMetrics
}

func (r idleRecorder) Added() {
	if r.next != nil {
		r.next.Added()
	}
}

func (r idleRecorder) Started(queued time.Duration) {
	if r.next != nil {
		r.next.Started(queued)
	}
}

func (r idleRecorder) Finished(worked time.Duration) {
	if r.next != nil {
		r.next.Finished(worked)
	}
}

func (r idleRecorder) Retried() {
	if r.next != nil {
		r.next.Retried()
	}
}

func (r idleRecorder) Processed(o queue.Outcome) {
	if r.next != nil {
		r.next.Processed(o)
	}
	r.done()
}
