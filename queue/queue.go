package queue

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"sync"
	"time"

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

	// Metrics, if not nil, is called once, by the constructor, to create the
	// recorder of the queue's measurements: name is Name, and snapshot
	// returns the queue's current gauges. snapshot is safe to call from any
	// goroutine at any time, costs one lock acquisition plus a walk over the
	// items being processed (and, in a TypedPriorityQueue, over the queued
	// items), and must not be called from within a Metrics method. Nil
	// means no metrics and no cost for them.
	Metrics MetricsProvider

	// Logger receives the errors and recovered panics of the workers started
	// by [TypedRateLimitingQueue.Run]. Nil means [slog.Default].
	Logger *slog.Logger
}

// Queue is a work queue of items of type K: it hands each added item to one
// worker at a time, collapses duplicates and otherwise keeps FIFO order. See
// the package documentation for the full semantics.
//
// A Queue must be created with [New] and must not be copied; a zero one
// panics, with a message naming the constructors, at the first call that
// needs its state. It is safe for
// simultaneous use by multiple goroutines.
type Queue[K comparable] struct {
	// Set by init and never changed.
	epoch   time.Time // origin of the monotonic nanosecond clock used by now
	name    string
	logger  *slog.Logger
	metrics Metrics // nil when Options.Metrics is nil

	// mu guards every field below. cond, on mu, is signalled when an item
	// becomes ready and broadcast as shutdown progresses and when a waiting
	// Get's context ends.
	mu   sync.Mutex
	cond sync.Cond

	// Items: where each item's state is.
	//
	// index maps each item the queue knows about to its slot: an item is
	// here exactly while it is queued, processing or waiting (or a mix).
	index itemIndex
	// slots is the arena of slots, indexed by slot id; unused slots form a
	// list through slot.next starting at free.
	slots []slot[K]
	free  int32

	// Handing out: the items workers may take and those they hold.
	//
	// ready holds, oldest first, the slots that are queued and not
	// processing, unless rk.on: then rk orders them (see readyLen).
	ready ring.Ring[int32]
	// rk ranks the ready slots of a TypedPriorityQueue by priority and age.
	rk ranking
	// dirty counts the slots that are both queued and processing: they join
	// ready when Done is called.
	dirty int
	// processing counts the slots handed out by Get and not yet Done.
	processing int
	// held lists up to heldMax of those slots, in held[:nheld], so that
	// Done usually finds its slot here, in cache, rather than in the index.
	held  [heldMax]int32
	nheld int

	// Delayed adds, used only through TypedDelayingQueue.
	//
	// waiting holds the slots with a pending delayed add, earliest first.
	// Entries are not removed when a delayed add is superseded or
	// cancelled: they go stale, are skipped when they surface, and are
	// compacted away when they are the majority.
	waiting waitHeap
	delays  []delay     // parallel to slots; shorter when its tail is zero
	stale   int         // entries of waiting that are no longer pending
	seq     uint64      // numbers waiters: identity, and FIFO order among equal ready times
	timer   *time.Timer // calls fire; created by the first AddAfter
	timerAt int64       // when timer is due, or noTimer when it is stopped or has fired

	// Lifetime.
	shuttingDown bool

	// Metrics, kept only when metrics is not nil.
	timings  []timing // parallel to slots
	inFlight slotList // processing slots in Get order
}

// notMade is the panic of a queue used without its constructor, at the
// first call that needs its internal state.
const notMade = "queue: a zero queue cannot be used: create it with New, NewTypedDelayingQueue, NewTypedRateLimitingQueue or NewTypedPriorityQueue"

// New returns an empty queue of items of type K.
func New[K comparable](opts Options) *Queue[K] {
	q := new(Queue[K])
	q.init(opts)
	return q
}

func (q *Queue[K]) init(opts Options) {
	q.cond.L = &q.mu
	q.index.seed = maphash.MakeSeed()
	q.index.entries = noEntries
	q.free = none
	q.inFlight = slotList{none, none}
	q.epoch = time.Now()
	q.timerAt = noTimer
	q.name = opts.Name
	q.logger = opts.Logger
	if q.logger == nil {
		q.logger = slog.Default()
	}
	if opts.Metrics != nil {
		q.metrics = opts.Metrics(opts.Name, q.snapshot)
	}
}

// now returns the monotonic time since the queue was created, in nanoseconds.
func (q *Queue[K]) now() int64 { return int64(time.Since(q.epoch)) }

// Add marks item as needing processing. If item is already queued, Add does
// nothing; if a worker holds it, item is queued again when the worker calls
// Done; if it has a pending delayed add, Add replaces that with an immediate
// one. After ShutDown, Add does nothing.
//
// In a [TypedPriorityQueue], Add adds item at [PriorityNormal], raising
// the priority of a pending add of item if it is lower.
func (q *Queue[K]) Add(item K) {
	q.add(item, addRank{prio: PriorityNormal})
}

// add implements Add with the priority a gives.
func (q *Queue[K]) add(item K, a addRank) {
	hash := q.hash(item)
	q.mu.Lock()
	added := q.addLocked(item, hash, a)
	q.mu.Unlock()
	if added && q.metrics != nil {
		q.metrics.Added()
	}
}

// addLocked queues item, whose hash is given, at the priority a gives, and
// reports whether it was not already queued.
func (q *Queue[K]) addLocked(item K, hash uint32, a addRank) bool {
	if q.shuttingDown {
		return false
	}
	id := q.slotLocked(item, hash)
	q.rerankLocked(id, a)
	s := &q.slots[id]
	switch {
	case s.queued:
		return false
	case q.waitLocked(id) != 0:
		q.withdrawLocked(id)
	}
	q.queueLocked(id, readyNow)
	return true
}

// queueLocked marks slot id queued, as ready since at (readyNow: now) or
// as dirty.
func (q *Queue[K]) queueLocked(id int32, at int64) {
	s := &q.slots[id]
	s.queued = true
	if q.metrics != nil {
		q.timings[id].addedAt = q.now()
	}
	if s.processing {
		q.dirty++
		return
	}
	q.pushReadyLocked(id, at)
}

// Get blocks until an item is ready and hands it to the caller, who must call
// Done with it once finished. It returns [ErrShutDown] once the queue is
// shutting down and has nothing left to hand out, and ctx.Err() if ctx ends
// first; an ended ctx returns at once, even if items are ready, and leaves
// the queue unchanged.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	item, _, err := q.take(ctx, false)
	return item, err
}

// take implements Get and returns the priority the item was handed out
// at (PriorityNormal outside a TypedPriorityQueue); woken reports that the
// caller already arranged for a Broadcast when ctx ends.
func (q *Queue[K]) take(ctx context.Context, woken bool) (K, Priority, error) {
	if q.cond.L == nil { // only in a zero queue
		panic(notMade)
	}
	q.mu.Lock()
	err := ctx.Err()
	promoted := 0
	if err == nil && q.readyLen() == 0 {
		promoted, err = q.waitReadyLocked(ctx, woken)
	}
	if err != nil {
		q.mu.Unlock()
		q.reportAdded(promoted)
		var zero K
		return zero, 0, err
	}
	id, prio := q.popReadyLocked()
	s := &q.slots[id]
	s.queued, s.processing = false, true
	q.processing++
	q.holdLocked(id)
	if q.shuttingDown {
		q.cond.Broadcast() // the last item may be gone: wake Get and drain waiters
	}
	var waited time.Duration
	if q.metrics != nil {
		t := &q.timings[id]
		t.startedAt = q.now()
		waited = time.Duration(t.startedAt - t.addedAt)
		q.inFlightPushLocked(id)
	}
	item := s.item
	q.mu.Unlock()
	if q.metrics != nil {
		q.reportAdded(promoted)
		q.metrics.Started(waited)
	}
	return item, prio, nil
}

// reportAdded tells the metrics about n added items.
func (q *Queue[K]) reportAdded(n int) {
	if q.metrics != nil {
		for range n {
			q.metrics.Added()
		}
	}
}

// waitReadyLocked waits until an item is ready, the queue has shut down
// with nothing left to hand out, or ctx ends. Before each wait it queues the
// delayed adds that are due, without waiting for the timer; it returns how
// many it queued.
func (q *Queue[K]) waitReadyLocked(ctx context.Context, woken bool) (promoted int, err error) {
	if !woken && ctx.Done() != nil {
		defer context.AfterFunc(ctx, q.wake)()
	}
	for q.readyLen() == 0 {
		if q.shuttingDown && q.dirty == 0 {
			return promoted, ErrShutDown
		}
		if q.waiting.len() > q.stale {
			if promoted += q.promoteLocked(q.now()); q.readyLen() > 0 {
				break
			}
		}
		q.cond.Wait()
		if err := ctx.Err(); err != nil {
			return promoted, err
		}
	}
	return promoted, nil
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
	hash := q.hash(item)
	q.mu.Lock()
	id := q.releaseLocked(item, hash)
	if id == none {
		q.mu.Unlock()
		return
	}
	s := &q.slots[id]
	s.processing = false
	q.processing--
	var worked time.Duration
	if q.metrics != nil {
		worked = time.Duration(q.now() - q.timings[id].startedAt)
		q.inFlightRemoveLocked(id)
	}
	switch {
	case s.queued:
		q.dirty--
		q.pushReadyLocked(id, readyNow)
	case q.waitLocked(id) == 0:
		q.deleteLocked(id)
	}
	if q.shuttingDown {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
	if q.metrics != nil {
		q.metrics.Finished(worked)
	}
}

// heldMax is how many processing slots Queue.held lists: a cache line.
const heldMax = 16

// holdLocked lists slot id, just handed out, in held if there is room.
func (q *Queue[K]) holdLocked(id int32) {
	if q.nheld < heldMax {
		q.held[q.nheld] = id
		q.nheld++
	}
}

// releaseLocked returns the slot of item, whose hash is given, if item is
// processing, and removes it from held; otherwise it returns none.
func (q *Queue[K]) releaseLocked(item K, hash uint32) int32 {
	for i, id := range q.held[:q.nheld] {
		if s := &q.slots[id]; s.hash == hash && s.item == item {
			q.nheld--
			q.held[i] = q.held[q.nheld]
			return id
		}
	}
	id := q.lookupLocked(item, hash)
	if id == none || !q.slots[id].processing {
		return none
	}
	return id
}

// Len returns the number of items ready to be handed out. Items held by
// workers, even if added again, and pending delayed adds are not counted.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.readyLen()
}
