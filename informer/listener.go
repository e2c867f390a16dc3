package informer

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// listener delivers notifications to one handler. The informer appends
// notifications to its buffer, under its mutex, with no allocation per
// notification; one goroutine (run) takes the whole buffer at once and
// calls the handler for each notification without holding the mutex. A
// slow handler therefore delays only itself, unless its buffer is bounded
// with the Block policy.
type listener[T any] struct {
	handler Handler[T]
	name    string
	// report receives handler panics; it is the informer's error handler.
	report func(error)
	// limit bounds buf for pushes that respect it; 0 means unbounded.
	limit    int
	overflow Overflow

	mu sync.Mutex
	// ready is signalled when buf becomes non-empty or the listener stops;
	// run waits on it.
	ready sync.Cond
	// space is broadcast when run delivers a notification while a push
	// waits (waiters > 0) and when the listener stops; pushes waiting
	// under the Block policy wait on it.
	space sync.Cond
	// buf holds notifications waiting for run, oldest first, in segments
	// taken from spare.
	buf   queue[T]
	spare spares[T]
	// emptied holds the segments run has delivered, until its next take
	// gives them back to spare; only run touches it.
	emptied     *segment[T]
	emptiedSegs int
	// over holds the overflow of a full Coalesce buffer; it is newer than
	// all of buf, and while it is non-empty every push goes to it.
	over coalescer[T]
	// started reports whether run was started; stopped whether the
	// listener takes no more notifications.
	started, stopped bool
	// initialPending counts initial-list adds pushed and not yet
	// delivered (or dropped by coalescing).
	initialPending int
	// upstreamSynced reports whether the informer has synced and pushed
	// every initial-list add this listener will receive.
	upstreamSynced bool
	// synced is closed once upstreamSynced and initialPending == 0.
	synced chan struct{}
	// done is closed when run returns, or at stop if run never started.
	done chan struct{}
	// coalesced and blocked count merges and waits, for Stats.
	coalesced, blocked uint64

	// halt mirrors stopped for run, which checks it between deliveries
	// without taking the mutex.
	halt atomic.Bool
	// inflight counts notifications run has taken out of buf and not yet
	// delivered.
	inflight atomic.Int64
	// waiters counts pushes waiting for room in a full Block buffer.
	waiters             atomic.Int32
	delivered, panicked atomic.Uint64

	// resync is the listener's resync state; the informer's mu guards it,
	// except due, which push reads.
	resync resyncState
}

// newListener returns a listener for h with the given buffer options.
func newListener[T any](h Handler[T], name string, buf BufferOptions, report func(error)) *listener[T] {
	l := &listener[T]{
		handler:  h,
		name:     name,
		report:   report,
		limit:    max(buf.Size, 0),
		overflow: buf.Overflow,
		synced:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	l.ready.L = &l.mu
	l.space.L = &l.mu
	return l
}

// push appends ns to the buffer, skipping resync notifications unless
// the listener's resync is due. A bounded listener applies its overflow
// policy unless unbounded is set. A push to a stopped listener does
// nothing.
func (l *listener[T]) push(ns []notification[T], unbounded bool) {
	// The handler's goroutine is woken after the mutex is released, so
	// that it does not wake only to wait for the mutex.
	if l.enqueue(ns, unbounded, l.resync.due.Load()) {
		l.ready.Signal()
	}
}

// enqueue is push without the final wakeup: it takes the mutex, appends ns
// and reports whether run must be woken.
func (l *listener[T]) enqueue(ns []notification[T], unbounded, due bool) (pushed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	for i := range ns {
		n := &ns[i]
		if n.resync && !due {
			continue
		}
		if n.initial {
			l.initialPending++
		}
		if l.limit > 0 && !unbounded && (l.over.Len() > 0 || l.fullLocked()) {
			if l.overflow == Coalesce {
				merged, dropped := l.over.push(*n)
				if merged {
					l.coalesced++
				}
				l.initialPending -= dropped
				continue
			}
			if pushed {
				l.ready.Signal()
			}
			if !l.waitSpaceLocked() {
				return false
			}
		}
		l.buf.push(*n, &l.spare)
		pushed = true
	}
	return pushed
}

// fullLocked reports whether limit notifications are pending: waiting in
// buf or taken by run and not yet delivered. Requires l.mu held.
func (l *listener[T]) fullLocked() bool {
	return l.buf.len+int(l.inflight.Load()) >= l.limit
}

// waitSpaceLocked waits until the buffer is not full, and reports false
// if the listener stopped meanwhile. Requires l.mu held.
//
// waiters is raised before the condition is checked, and run lowers
// inflight before it reads waiters: so either run sees the waiter and
// broadcasts, or the waiter sees the lower inflight.
func (l *listener[T]) waitSpaceLocked() bool {
	l.waiters.Add(1)
	defer l.waiters.Add(-1)
	for l.fullLocked() && !l.stopped {
		l.blocked++
		l.space.Wait()
	}
	return !l.stopped
}

// run delivers notifications until the listener stops.
func (l *listener[T]) run() {
	defer close(l.done)
	var chunk queue[T]
	for l.take(&chunk) {
		l.finishInitial(l.deliverChunk(&chunk))
	}
}

// finishInitial records that n initial-list adds were delivered.
func (l *listener[T]) finishInitial(n int) {
	if n == 0 {
		return
	}
	l.mu.Lock()
	l.initialPending -= n
	l.checkSyncedLocked()
	l.mu.Unlock()
}

// take gives the segments of the last chunk back for reuse, waits until
// notifications are pending and moves the whole buffer into chunk, so
// that the mutex is taken once per chunk, not per notification. It
// reports false, moving nothing, once the listener has stopped.
func (l *listener[T]) take(chunk *queue[T]) bool {
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

// deliverChunk calls the handler for every notification of chunk,
// clearing each once delivered so that no segment pins an object, and
// returns the number of initial-list adds delivered. It leaves chunk
// empty and its segments in l.emptied. It stops early, dropping the rest,
// when the listener stops.
func (l *listener[T]) deliverChunk(chunk *queue[T]) (initial int) {
	for s := chunk.head; s != nil; {
		for i := range s.n {
			if l.halt.Load() {
				clear(s.ns[i:s.n])
				l.inflight.Store(0)
				break
			}
			n := &s.ns[i]
			l.deliver(n)
			if n.initial {
				initial++
			}
			*n = notification[T]{}
			l.inflight.Add(-1)
			l.delivered.Add(1)
			if l.waiters.Load() > 0 {
				l.mu.Lock()
				l.space.Broadcast()
				l.mu.Unlock()
			}
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

// deliver calls the handler for n, recovering and reporting a panic.
func (l *listener[T]) deliver(n *notification[T]) {
	defer func() {
		if v := recover(); v != nil {
			l.panicked.Add(1)
			l.report(&PanicError{
				Handler: l.name,
				Method:  n.method(),
				Key:     n.key,
				Value:   fmt.Sprint(v),
				Stack:   debug.Stack(),
			})
		}
	}()
	n.deliver(l.handler)
}

// start records that run is about to be started.
func (l *listener[T]) start() {
	l.mu.Lock()
	l.started = true
	l.mu.Unlock()
}

// stop makes the listener drop its pending notifications, refuse new
// ones and, once the handler call in progress returns, end run. It is
// idempotent.
func (l *listener[T]) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	l.halt.Store(true)
	l.buf, l.spare = queue[T]{}, spares[T]{}
	l.over.clear()
	l.ready.Broadcast()
	l.space.Broadcast()
	if !l.started {
		close(l.done)
	}
}

// markUpstreamSynced records that the listener has been pushed every
// initial-list add it will receive.
func (l *listener[T]) markUpstreamSynced() {
	l.mu.Lock()
	l.upstreamSynced = true
	l.checkSyncedLocked()
	l.mu.Unlock()
}

// checkSyncedLocked closes synced once every initial-list add pushed has
// been delivered after upstream sync. It requires l.mu held.
func (l *listener[T]) checkSyncedLocked() {
	if l.upstreamSynced && l.initialPending == 0 {
		select {
		case <-l.synced:
		default:
			close(l.synced)
		}
	}
}
