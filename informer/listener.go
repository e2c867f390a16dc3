package informer

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// listener delivers notifications to one handler. The informer appends
// notifications to its buffer, under its mutex, with no allocation per
// notification; one goroutine (run) swaps the whole buffer for its own
// empty one and calls the handler for each notification without holding
// the mutex. A slow handler therefore delays only itself, unless its
// buffer is bounded with the Block policy.
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
	// buf holds notifications waiting for run, oldest first. run swaps it
	// for its delivered chunk, so the two slices take turns and their
	// memory is reused (see keepChunk).
	buf []notification[T]
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
	due := l.resync.due.Load()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	pushed := false
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
				return
			}
		}
		l.buf = append(l.buf, *n)
		pushed = true
	}
	if pushed {
		l.ready.Signal()
	}
}

// fullLocked reports whether limit notifications are pending: waiting in
// buf or taken by run and not yet delivered. Requires l.mu held.
func (l *listener[T]) fullLocked() bool {
	return len(l.buf)+int(l.inflight.Load()) >= l.limit
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
	var c chunk[T]
	for l.take(&c.ns) {
		l.finishInitial(l.deliverChunk(&c.ns))
		c.recycle()
	}
}

// chunk is the slice of notifications run is delivering. Once delivered,
// it goes back to the buffer at the next swap, so that a steady stream of
// notifications allocates nothing; recycle decides whether its memory is
// worth keeping.
type chunk[T any] struct {
	ns []notification[T]
	// slack counts the consecutive chunks that used under a quarter of
	// the capacity they were given.
	slack int
}

// keepChunk is the largest capacity, in notifications, a chunk keeps for
// reuse (640 KB for a pointer type). A chunk larger than smallChunk (40
// KB) is dropped anyway after slackChunks consecutive chunks that used
// under a quarter of their capacity. A burst (an initial list, a stalled
// handler) thus does not pin its memory for long, and a steady stream of
// any rate reuses the same two slices instead of growing a new one at
// every swap.
const (
	keepChunk   = 16384
	smallChunk  = 1024
	slackChunks = 64
)

// recycle empties the delivered chunk, keeping its memory for the next
// swap unless it is larger than keepChunk, or larger than smallChunk and
// mostly unused for slackChunks chunks in a row.
func (c *chunk[T]) recycle() {
	n, capacity := len(c.ns), cap(c.ns)
	if 4*n < capacity {
		c.slack++
	} else {
		c.slack = 0
	}
	if capacity > keepChunk || (capacity > smallChunk && c.slack >= slackChunks) {
		c.ns, c.slack = nil, 0
		return
	}
	c.ns = c.ns[:0]
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

// take waits until notifications are pending and swaps the buffer for
// the empty chunk, so that the mutex is taken once per chunk, not per
// notification. It reports false, moving nothing, once the listener has
// stopped.
func (l *listener[T]) take(chunk *[]notification[T]) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.buf) == 0 && l.over.Len() == 0 && !l.stopped {
		l.ready.Wait()
	}
	if l.stopped {
		return false
	}
	// The overflow is newer than buf: it moves in behind it.
	for len(l.buf) < l.limit {
		n, ok := l.over.pop()
		if !ok {
			break
		}
		l.buf = append(l.buf, n)
	}
	*chunk, l.buf = l.buf, (*chunk)[:0]
	l.inflight.Store(int64(len(*chunk)))
	return true
}

// deliverChunk calls the handler for every notification of chunk,
// clearing each once delivered so that the chunk pins no object, and
// returns the number of initial-list adds delivered. It stops early,
// dropping the rest, when the listener stops.
func (l *listener[T]) deliverChunk(chunk *[]notification[T]) (initial int) {
	ns := *chunk
	for i := range ns {
		if l.halt.Load() {
			clear(ns[i:])
			l.inflight.Store(0)
			return initial
		}
		n := &ns[i]
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
	clear(l.buf)
	l.buf = nil
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
