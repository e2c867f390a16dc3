package fanout

import (
	"sync"
	"sync/atomic"
)

// Overflow says what a bounded buffer does when it is full.
type Overflow uint8

const (
	// Block makes a push wait until the delivery goroutine has taken
	// notifications out of the buffer.
	Block Overflow = iota
	// Coalesce makes a full buffer merge each new notification with the
	// one still pending for the same key; a push never waits.
	Coalesce
)

// Options configure a listener's buffer. The zero value is unbounded.
type Options struct {
	// Limit bounds the number of notifications pending: waiting in the
	// buffer, or taken by Run and not yet delivered, the one being
	// delivered included. Zero or negative means unbounded.
	Limit int
	// Overflow is what a push does when Limit notifications are pending.
	Overflow Overflow
	// Name names the receiver, for Listener.Name.
	Name string
}

// Panic describes a panic recovered from a delivery.
type Panic struct {
	// Key and Kind are those of the notification being delivered.
	Key  string
	Kind Kind
	// Value is the panic value, formatted with fmt.Sprint.
	Value string
	// Stack is the stack trace of the panicking goroutine.
	Stack []byte
}

// Listener buffers notifications for one receiver and delivers them, in
// the order they were pushed, from the goroutine that calls Run. Pushes
// append to the buffer under its mutex, allocating nothing per
// notification; Run takes the whole buffer at once and delivers it
// without the mutex. A slow receiver therefore delays only itself, unless
// its buffer is bounded with Block.
//
// A Listener is safe for simultaneous use by multiple goroutines. Use
// NewListener to create one.
type Listener[T any] struct {
	// deliver and report are the receiver and its panic report.
	deliver func(*Notification[T])
	report  func(Panic)
	name    string
	// limit bounds buf for pushes that respect it; 0 means unbounded.
	limit    int
	overflow Overflow

	// mu guards the fields below it, up to halt.
	mu sync.Mutex
	// ready is signalled when buf becomes non-empty or the listener stops;
	// Run waits on it.
	ready sync.Cond
	// space is broadcast when Run delivers a notification while a push
	// waits (waiters > 0) and when the listener stops; pushes waiting
	// under the Block policy wait on it.
	space sync.Cond
	// buf holds notifications waiting for Run, oldest first, in segments
	// taken from spare.
	buf   queue[T]
	spare spares[T]
	// emptied holds the segments Run has delivered, until its next take
	// gives them back to spare; only Run touches it.
	emptied     *segment[T]
	emptiedSegs int
	// over holds the overflow of a full Coalesce buffer; it is newer than
	// all of buf, and while it is non-empty every push goes to it.
	over coalescer[T]
	// started reports whether Run was called; stopped whether the
	// listener takes no more notifications.
	started, stopped bool
	// initialPending counts initial-list adds pushed and not yet
	// delivered (or dropped by coalescing).
	initialPending int
	// upstreamSynced reports whether MarkUpstreamSynced was called.
	upstreamSynced bool
	// synced is closed once upstreamSynced and initialPending == 0.
	synced chan struct{}
	// done is closed when Run returns, or at Stop if Run never started.
	done chan struct{}
	// coalesced and blocked count merges and waits, for Stats.
	coalesced, blocked uint64

	// halt mirrors stopped for Run, which checks it between deliveries
	// without taking the mutex.
	halt atomic.Bool
	// inflight counts notifications Run has taken out of buf and not yet
	// delivered.
	inflight atomic.Int64
	// waiters counts pushes waiting for room in a full Block buffer.
	waiters             atomic.Int32
	delivered, panicked atomic.Uint64

	// resync is the listener's resync schedule, with its own lock.
	resync resync
}

// NewListener returns a listener that delivers each notification by
// calling deliver, from Run's goroutine, and reports a panic of deliver to
// report, from the same goroutine, before going on with the next
// notification. It panics if deliver or report is nil.
func NewListener[T any](deliver func(*Notification[T]), report func(Panic), opts Options) *Listener[T] {
	if deliver == nil || report == nil {
		panic("fanout: NewListener called with a nil function")
	}
	l := &Listener[T]{
		deliver:  deliver,
		report:   report,
		name:     opts.Name,
		limit:    max(opts.Limit, 0),
		overflow: opts.Overflow,
		synced:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	l.ready.L = &l.mu
	l.space.L = &l.mu
	return l
}

// MayBlock reports whether a push may wait for Run: the buffer is bounded
// with the Block policy.
func (l *Listener[T]) MayBlock() bool { return l.limit > 0 && l.overflow != Coalesce }

// Push appends ns to the buffer, dropping resync notifications unless the
// listener's resync is due. A full bounded buffer applies its overflow
// policy. A push to a stopped listener does nothing, and a push waiting
// in a full Block buffer returns when the listener stops, dropping the
// rest of ns. Push does not keep ns.
func (l *Listener[T]) Push(ns []Notification[T]) { l.push(ns, false) }

// PushUnbounded is Push without the limit: the buffer grows to hold all
// of ns, and the push never waits.
func (l *Listener[T]) PushUnbounded(ns []Notification[T]) { l.push(ns, true) }

// push appends ns to the buffer, respecting the limit unless unbounded.
func (l *Listener[T]) push(ns []Notification[T], unbounded bool) {
	// Run's goroutine is woken after the mutex is released, so that it
	// does not wake only to wait for the mutex.
	if l.enqueue(ns, unbounded, l.resync.due.Load()) {
		l.ready.Signal()
	}
}

// enqueue is push without the final wakeup: it takes the mutex, appends ns
// and reports whether Run must be woken.
func (l *Listener[T]) enqueue(ns []Notification[T], unbounded, due bool) (pushed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	for i := range ns {
		n := &ns[i]
		if n.Resync && !due {
			continue
		}
		if n.Initial {
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
// buf or taken by Run and not yet delivered. Requires l.mu held.
func (l *Listener[T]) fullLocked() bool {
	return l.buf.len+int(l.inflight.Load()) >= l.limit
}

// waitSpaceLocked waits until the buffer is not full, and reports false
// if the listener stopped meanwhile. Requires l.mu held.
//
// waiters is raised before the condition is checked, and Run lowers
// inflight before it reads waiters: so either Run sees the waiter and
// broadcasts, or the waiter sees the lower inflight.
func (l *Listener[T]) waitSpaceLocked() bool {
	l.waiters.Add(1)
	defer l.waiters.Add(-1)
	for l.fullLocked() && !l.stopped {
		l.blocked++
		l.space.Wait()
	}
	return !l.stopped
}

// Stop makes the listener drop its pending notifications and refuse new
// ones, releases the pushes waiting for room, and, once the delivery in
// progress returns, ends Run. It is idempotent.
func (l *Listener[T]) Stop() {
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

// Done returns a channel that is closed once no notification will be
// delivered again: when Run returns, or at Stop if Run was never called.
func (l *Listener[T]) Done() <-chan struct{} { return l.done }
