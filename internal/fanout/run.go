package fanout

import (
	"fmt"
	"runtime/debug"
)

// Run delivers the notifications pushed, in order, until Stop; it returns
// once the delivery in progress, if any, has returned. Run returns at
// once if the listener was stopped before, or if Run was called before.
func (l *Listener[T]) Run() {
	l.mu.Lock()
	if l.started || l.stopped {
		l.mu.Unlock()
		return
	}
	l.started = true
	l.mu.Unlock()
	defer close(l.done)
	var chunk queue[T]
	for l.take(&chunk) {
		l.finishInitial(l.deliverChunk(&chunk))
	}
}

// take gives the segments of the last chunk back for reuse, waits until
// notifications are pending and moves the whole buffer into chunk, so
// that the mutex is taken once per chunk, not per notification. It
// reports false, moving nothing, once the listener has stopped.
func (l *Listener[T]) take(chunk *queue[T]) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.emptied != nil && !l.stopped {
		l.spare.give(l.emptied, l.emptiedSegs)
	}
	l.emptied, l.emptiedSegs = nil, 0
	for l.buf.len == 0 && l.over.Len() == 0 && !l.stopped {
		l.ready.Wait()
	}
	if l.stopped {
		return false
	}
	// The overflow is newer than buf: it moves in behind it.
	for l.buf.len < l.limit {
		n, ok := l.over.pop()
		if !ok {
			break
		}
		l.buf.push(n, &l.spare)
	}
	*chunk, l.buf = l.buf, queue[T]{}
	l.inflight.Store(int64(chunk.len))
	return true
}

// deliverChunk delivers every notification of chunk, clearing each once
// delivered so that no segment pins an object, and returns the number of
// initial-list adds delivered. It leaves chunk empty and its segments in
// l.emptied. It stops early, dropping the rest, when the listener stops.
func (l *Listener[T]) deliverChunk(chunk *queue[T]) (initial int) {
	for s := chunk.head; s != nil; {
		for i := 0; i < s.n; {
			i = l.deliverFrom(s, i, &initial)
		}
		next := s.next
		s.n, s.next = 0, l.emptied
		l.emptied = s
		l.emptiedSegs++
		s = next
	}
	*chunk = queue[T]{}
	return initial
}

// deliverFrom delivers s.ns[i:s.n], adding the initial-list adds
// delivered to *initial, until a delivery panics: it reports the panic
// and returns the index of the next notification, s.n once the segment
// is done. When the listener stops, it clears the rest of the segment and
// returns s.n. One deferred recover thus covers a run of deliveries.
func (l *Listener[T]) deliverFrom(s *segment[T], i int, initial *int) (next int) {
	defer func() {
		if v := recover(); v != nil {
			n := &s.ns[next]
			l.panicked.Add(1)
			l.report(Panic{Key: n.Key, Kind: n.Kind, Value: fmt.Sprint(v), Stack: debug.Stack()})
			l.finishDelivery(n, initial)
			next++
		}
	}()
	for next = i; next < s.n; next++ {
		if l.halt.Load() {
			clear(s.ns[next:s.n])
			l.inflight.Store(0)
			return s.n
		}
		n := &s.ns[next]
		l.deliver(n)
		l.finishDelivery(n, initial)
	}
	return next
}

// finishDelivery records the delivery of n, which returned or panicked,
// and clears it.
func (l *Listener[T]) finishDelivery(n *Notification[T], initial *int) {
	if n.Initial {
		*initial++
	}
	*n = Notification[T]{}
	l.inflight.Add(-1)
	l.delivered.Add(1)
	if l.waiters.Load() > 0 {
		l.mu.Lock()
		l.space.Broadcast()
		l.mu.Unlock()
	}
}
