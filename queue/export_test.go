package queue

// State is a count of a queue's internal states, for tests.
type State struct {
	Ready, Dirty, Processing, Waiting, Slots int
}

// State returns the queue's internal counts.
func (q *Queue[K]) State() State {
	q.mu.Lock()
	defer q.mu.Unlock()
	return State{Ready: q.readyLen(), Dirty: q.dirty, Processing: q.processing, Waiting: q.waiting.len() - q.stale,
		Slots: q.index.count - len(q.index.pending)}
}

// Exponential exposes the backoff computation.
var Exponential = exponential

// DeferRemovals makes every queue defer the removal of index entries, as a
// large queue does, until restore is called.
func DeferRemovals() (restore func()) {
	deferFrom = 0
	return func() { deferFrom = defaultDeferFrom }
}
