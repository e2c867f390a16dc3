package queue

import "context"

// ShutDown makes the queue ignore further adds and drops pending delayed
// adds. Get keeps handing out the items already queued, including those
// added again while processing, and then returns [ErrShutDown]. ShutDown
// does not wait; it may be called more than once.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	q.mu.Unlock()
}

func (q *Queue[K]) shutDownLocked() {
	if q.shuttingDown {
		return
	}
	q.shuttingDown = true
	if q.timer != nil {
		q.timer.Stop()
		q.timerAt = noTimer
	}
	for q.waiting.len() > 0 {
		w := q.waiting.pop()
		if !q.pendingLocked(w) {
			continue
		}
		q.delays[w.id].wait = 0
		if !q.slots[w.id].processing {
			q.deleteLocked(w.id)
		}
	}
	q.stale = 0
	q.cond.Broadcast()
}

// ShutDownWithDrain shuts the queue down like ShutDown and then waits until
// every queued item has been handed out and every handed-out item has been
// marked Done, so it needs running workers. It returns nil once the queue
// is drained, or ctx.Err() if ctx ends first; the queue stays shut down
// either way.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, q.wake)()
	}
	for q.readyLen() > 0 || q.dirty > 0 || q.processing > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		q.cond.Wait()
	}
	return nil
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}
