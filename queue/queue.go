package queue

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/typedcache/typedcache/internal/heap"
	"github.com/typedcache/typedcache/internal/ring"
)

// ErrShutDown is returned by Get once the queue is shutting down and holds
// nothing more to hand out.
var ErrShutDown = errors.New("queue: shut down")

// Options holds the optional settings of a queue. The zero value is a queue
// without metrics that logs through [slog.Default].
type Options struct {
	// Name identifies the queue to the metrics provider and in log records.
	Name string

	// Metrics, if not nil, receives the queue's measurements; see
	// [MetricsProvider]. Nil means no metrics and no cost for them.
	Metrics MetricsProvider

	// Logger receives the errors and recovered panics of the workers started
	// by [TypedRateLimitingQueue.Run]. Nil means [slog.Default].
	Logger *slog.Logger
}

// Queue is a work queue of items of type K: it hands each added item to one
// worker at a time, collapses duplicates and otherwise keeps FIFO order. See
// the package documentation for the full semantics.
//
// A Queue must be created with [New] and must not be copied. It is safe for
// simultaneous use by multiple goroutines.
type Queue[K comparable] struct {
	mu   sync.Mutex
	cond sync.Cond // L is &mu; signalled when an item becomes ready or shutdown progresses

	// items holds one slot per item the queue knows about: an item is here
	// exactly while it is queued, processing or waiting (or a mix of those).
	items map[K]*slot[K]
	// ready holds, oldest first, the slots that are queued and not processing.
	ready ring.Ring[*slot[K]]
	// dirty counts the slots that are both queued and processing: they join
	// ready when Done is called.
	dirty int
	// processing counts the slots handed out by Get and not yet Done.
	processing int

	// waiting holds the slots with a pending delayed add, earliest first.
	// It and the fields below it are used only through TypedDelayingQueue.
	waiting *heap.Heap[*slot[K]]
	seq     uint64      // stamps waiting slots so that equal ready times keep FIFO order
	timer   *time.Timer // calls fire; created by the first AddAfter
	timerAt int64       // when timer is due, or noTimer when it is stopped or has fired

	epoch time.Time // origin of the monotonic nanosecond clock used by now
	free  []*slot[K]

	shuttingDown bool

	name     string
	logger   *slog.Logger
	metrics  QueueMetrics // nil when Options.Metrics is nil
	inFlight slotList[K]  // processing slots in Get order; kept only with metrics
}

// slot is the state of one item. The flags combine as follows:
//
//	queued && !processing: in Queue.ready, waiting for a worker
//	queued && processing:  dirty, added again while a worker holds it
//	!queued && processing: held by a worker, nothing pending
//	index >= 0:            a delayed add is pending; never together with queued
type slot[K comparable] struct {
	item       K
	queued     bool
	processing bool
	index      int   // position in Queue.waiting, or -1
	readyAt    int64 // when the delayed add is due, in Queue.now units
	seq        uint64

	// Kept only with metrics.
	addedAt    int64
	startedAt  int64
	prev, next *slot[K] // neighbours in Queue.inFlight
}

const (
	noTimer  = int64(^uint64(0) >> 1) // math.MaxInt64
	freeSlab = 1024                   // the most free slots kept for reuse
)

// New returns an empty queue of items of type K.
func New[K comparable](opts Options) *Queue[K] {
	q := new(Queue[K])
	q.init(opts)
	return q
}

func (q *Queue[K]) init(opts Options) {
	q.cond.L = &q.mu
	q.items = make(map[K]*slot[K])
	q.epoch = time.Now()
	q.timerAt = noTimer
	q.name = opts.Name
	q.logger = opts.Logger
	if q.logger == nil {
		q.logger = slog.Default()
	}
	if opts.Metrics != nil {
		q.metrics = opts.Metrics.NewQueueMetrics(opts.Name, q.snapshot)
	}
}

// now returns the monotonic time since the queue was created, in nanoseconds.
func (q *Queue[K]) now() int64 { return int64(time.Since(q.epoch)) }

// Add marks item as needing processing. If item is already queued, Add does
// nothing; if a worker holds it, item is queued again when the worker calls
// Done; if it has a pending delayed add, Add replaces that with an immediate
// one. After ShutDown, Add does nothing.
func (q *Queue[K]) Add(item K) {
	q.mu.Lock()
	added := q.addLocked(item)
	q.mu.Unlock()
	if added && q.metrics != nil {
		q.metrics.Added()
	}
}

// addLocked queues item and reports whether it was not already queued.
func (q *Queue[K]) addLocked(item K) bool {
	if q.shuttingDown {
		return false
	}
	s := q.items[item]
	switch {
	case s == nil:
		s = q.newSlotLocked(item)
		q.items[item] = s
	case s.queued:
		return false
	case s.index >= 0:
		q.waiting.Remove(s.index)
		s.index = -1
	}
	q.queueLocked(s)
	return true
}

// queueLocked marks s queued, as ready or as dirty.
func (q *Queue[K]) queueLocked(s *slot[K]) {
	s.queued = true
	if q.metrics != nil {
		s.addedAt = q.now()
	}
	if s.processing {
		q.dirty++
		return
	}
	q.ready.Push(s)
	q.cond.Signal()
}

// Get blocks until an item is ready and hands it to the caller, who must call
// Done with it once finished. It returns [ErrShutDown] once the queue is
// shutting down and has nothing left to hand out, and ctx.Err() if ctx ends
// first; an ended ctx returns at once, even if items are ready, and leaves
// the queue unchanged.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	return q.get(ctx, false)
}

// get implements Get; woken reports that the caller already arranged for a
// Broadcast when ctx ends.
func (q *Queue[K]) get(ctx context.Context, woken bool) (K, error) {
	q.mu.Lock()
	err := ctx.Err()
	if err == nil && q.ready.Len() == 0 {
		err = q.waitReadyLocked(ctx, woken)
	}
	if err != nil {
		q.mu.Unlock()
		var zero K
		return zero, err
	}
	s, _ := q.ready.Pop()
	s.queued, s.processing = false, true
	q.processing++
	if q.shuttingDown {
		q.cond.Broadcast() // the last item may be gone: wake Get and drain waiters
	}
	var waited time.Duration
	if q.metrics != nil {
		s.startedAt = q.now()
		waited = time.Duration(s.startedAt - s.addedAt)
		q.inFlight.pushBack(s)
	}
	item := s.item
	q.mu.Unlock()
	if q.metrics != nil {
		q.metrics.Started(waited)
	}
	return item, nil
}

// waitReadyLocked waits until an item is ready, the queue has shut down
// with nothing left to hand out, or ctx ends.
func (q *Queue[K]) waitReadyLocked(ctx context.Context, woken bool) error {
	if !woken && ctx.Done() != nil {
		defer context.AfterFunc(ctx, q.wake)()
	}
	for q.ready.Len() == 0 {
		if q.shuttingDown && q.dirty == 0 {
			return ErrShutDown
		}
		q.cond.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// wake wakes every goroutine waiting on the queue so that it rechecks its
// context.
func (q *Queue[K]) wake() {
	q.mu.Lock()
	q.cond.Broadcast()
	q.mu.Unlock()
}

// Done marks item as no longer being processed. If item was added again
// while it was processing, it is queued now. Done of an item that Get did
// not hand out does nothing.
func (q *Queue[K]) Done(item K) {
	q.mu.Lock()
	s := q.items[item]
	if s == nil || !s.processing {
		q.mu.Unlock()
		return
	}
	s.processing = false
	q.processing--
	var worked time.Duration
	if q.metrics != nil {
		worked = time.Duration(q.now() - s.startedAt)
		q.inFlight.remove(s)
	}
	switch {
	case s.queued:
		q.dirty--
		q.ready.Push(s)
		q.cond.Signal()
	case s.index < 0:
		q.deleteLocked(s)
	}
	if q.shuttingDown {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
	if q.metrics != nil {
		q.metrics.Finished(worked)
	}
}

// Len returns the number of items ready to be handed out. Items held by
// workers, even if added again, and pending delayed adds are not counted.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.Len()
}

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
	for q.waiting != nil && q.waiting.Len() > 0 {
		s, _ := q.waiting.Pop()
		s.index = -1
		if !s.processing {
			q.deleteLocked(s)
		}
	}
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
	for q.ready.Len() > 0 || q.dirty > 0 || q.processing > 0 {
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

func (q *Queue[K]) newSlotLocked(item K) *slot[K] {
	if n := len(q.free); n > 0 {
		s := q.free[n-1]
		q.free = q.free[:n-1]
		s.item = item
		return s
	}
	return &slot[K]{item: item, index: -1}
}

// deleteLocked forgets s, which must be neither queued, processing nor
// waiting, and keeps it for reuse.
func (q *Queue[K]) deleteLocked(s *slot[K]) {
	delete(q.items, s.item)
	if len(q.free) < freeSlab {
		var zero K
		s.item = zero
		q.free = append(q.free, s)
	}
}
