package deltafifo

import (
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/typedcache/typedcache/internal/ring"
	"github.com/typedcache/typedcache/keys"
)

// ErrClosed is returned by Pop and PopBatch once the DeltaFIFO is closed and
// no key is ready, and by every method that would add deltas after Close.
var ErrClosed = errors.New("deltafifo: closed")

// ErrRequeue, wrapped in the error a processor returns, asks Pop or PopBatch
// to put the processed deltas back: they are queued again, in front of any
// deltas of the same key that arrived meanwhile. Pop returns the
// processor's error either way.
var ErrRequeue = errors.New("deltafifo: requeue")

// KnownObjects is the consumer's view of the objects it has already
// processed, typically the informer's cache (*indexer.Indexer[T] satisfies
// it). It must use the same keys as the DeltaFIFO's key function. The
// DeltaFIFO consults it in Delete (is the key known?), Replace (which known
// keys are missing from the list?) and Resync (what to resync).
//
// The DeltaFIFO calls these methods with its lock held, so that the queue
// and the cache are seen at one instant; they must be fast and must not call
// back into the DeltaFIFO.
type KnownObjects[T any] interface {
	// GetByKey returns the object stored under key and reports whether
	// there is one.
	GetByKey(key string) (T, bool)
	// Keys yields the key of every stored object.
	Keys() iter.Seq[string]
}

// Options are the optional settings of a DeltaFIFO. The zero value is valid:
// no known objects, Replace emits Replaced, no transform.
type Options[T any] struct {
	// KnownObjects is the consumer's cache. When nil, Delete drops every key
	// that has nothing queued, Replace infers deletions only for queued keys,
	// and Resync does nothing.
	KnownObjects KnownObjects[T]

	// Transform, if not nil, is applied once to every object on its way in
	// (Add, Update, Delete and the objects listed to Replace), before it is
	// queued; typically it strips fields the consumer never reads, to save
	// memory. It is not applied to inferred deletions nor to Sync deltas from
	// Resync, whose objects come from the cache and were transformed
	// already. It must not change the object's key. If it fails, the
	// operation returns the error and queues nothing.
	Transform func(T) (T, error)
}

// DeltaFIFO is a queue of changes between a producer (a reflector) and a
// consumer (an informer). It keeps, per object key, the list of changes not
// yet processed, and hands one key's list at a time to a processor. See the
// package documentation for the exact semantics.
//
// A DeltaFIFO is safe for simultaneous use by multiple goroutines. Use New
// to create one: a zero DeltaFIFO reads as empty, and its methods that
// return an error return one that names New.
//
// Recording a delta allocates nothing beyond what the key function
// allocates, once the FIFO has grown to its working size. With keys.Of
// itself as the key function of pointer objects (not a function calling
// it), the FIFO builds each key on the stack and allocates a key string
// only for a key without a slot: a delta for a key that has deltas queued,
// or whose slot is idle, allocates nothing. Slots live in pages that never
// move, and keys are indexed by an open-addressing table of 8-byte
// entries, so that growing copies no slot and rehashes no key. The bench
// module measures the costs against client-go's DeltaFIFO
// (bench/RESULTS.md).
//
// A key's slot is kept after its deltas are processed, so that its next
// delta finds it without changing the index; the slot is reused for
// another key when no free one is left. When a Pop or PopBatch finds
// nothing ready and nothing being processed (the FIFO is drained), a FIFO
// of more than 1024 slots releases the slots, the index and the delta
// buffers if it has more than twice as many slots as ever held deltas at
// once between two drains, over the last 256 to 511 drains. A burst, such
// as a first list, thus gives its memory back when its consumer has caught
// up. A steady stream keeps what it needs, spikes
// included, so that its producer does not remake slots and index entries
// after every drain. A Pop that waits allocates nothing.
type DeltaFIFO[T any] struct {
	// Set by New and never changed. objectKeys reports that keyFunc is
	// keys.Of, whose keys record builds on the stack (see recordObject).
	keyFunc    keys.Func[T]
	objectKeys bool
	known      KnownObjects[T]
	transform  func(T) (T, error)

	// mu guards every field below. cond, on mu, is signalled when a key
	// becomes ready, on Close and when a waiting popper's context is done.
	mu   sync.Mutex
	cond sync.Cond

	// The queue: where each key's deltas are, and the order keys pop in.
	//
	// index maps every key that has deltas queued, parked or in flight to
	// its primary slot: the queued or in-flight one; and the keys of idle
	// slots to them.
	index keyIndex
	// indexHint is the largest size index was made for; Replace makes a new,
	// presized table when the FIFO holds no deltas and a list is larger.
	indexHint int
	slots     slots[T]
	// ready holds the queued slots in pop order. A slot is in ready if and
	// only if its state is slotQueued.
	ready    ring.Ring[int32]
	parked   int // number of slots in state slotParked
	inflight int // number of slots in state slotInFlight
	// gen is the generation of the current or last Replace; slot.listed
	// equal to gen marks the keys it listed.
	gen uint32

	// Sync and lifetime. populated reports whether Add, Update, Delete or
	// Replace was called; initialLeft counts the slots that hold deltas of
	// the first Replace and have not been processed yet.
	populated   bool
	initialLeft int
	closed      bool

	// Poppers. batches are reusable PopBatch buffers; wake is the
	// registration that woke the last popper waiting with a context, kept
	// for its next wait (nil if none, and after Close).
	batches []*batch[T]
	wake    *wakeup

	// release decides when a drained FIFO gives its memory back.
	release releasePolicy
}

// New returns an empty DeltaFIFO that keys objects with keyFunc, typically
// keys.Of. It panics if keyFunc is nil.
func New[T any](keyFunc keys.Func[T], opts Options[T]) *DeltaFIFO[T] {
	if keyFunc == nil {
		panic("deltafifo: New called with a nil key function")
	}
	f := &DeltaFIFO[T]{
		keyFunc:    keyFunc,
		objectKeys: stackKeys(keyFunc),
		known:      opts.KnownObjects,
		transform:  opts.Transform,
		index:      newKeyIndex(),
		release:    newReleasePolicy(),
	}
	f.slots.init()
	f.cond.L = &f.mu
	return f
}

// Add records that obj was added.
func (f *DeltaFIFO[T]) Add(obj T) error { return f.record(Added, obj) }

// Update records that obj was updated.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.record(Updated, obj) }

// Delete records that obj was deleted; obj is its last state. The deletion
// is dropped when its key has no deltas in the FIFO (queued or being
// processed) and is not in KnownObjects: there is nothing to delete. If the
// key's newest delta is already a deletion, the two collapse into one.
func (f *DeltaFIFO[T]) Delete(obj T) error { return f.record(Deleted, obj) }

// record computes obj's key and transforms it outside the lock, then queues
// a delta of type t.
func (f *DeltaFIFO[T]) record(t DeltaType, obj T) error {
	if f.objectKeys {
		return f.recordObject(t, obj)
	}
	return f.recordKeyed(t, obj)
}

// recordKeyed is record with keys computed by the key function.
func (f *DeltaFIFO[T]) recordKeyed(t DeltaType, obj T) error {
	if f.zero() {
		return errZero
	}
	key, obj, err := f.prepare(obj)
	if err != nil {
		return err
	}
	d := Delta[T]{Type: t, Object: obj}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	f.populated = true
	if t != Deleted || f.hasKeyLocked(key) { // else nothing to delete: dropped
		f.addLocked(key, d)
	}
	f.mu.Unlock()
	return nil
}

// prepare returns obj's key and obj after the transform.
func (f *DeltaFIFO[T]) prepare(obj T) (string, T, error) {
	key, err := f.keyFunc(obj)
	if err != nil {
		return "", obj, fmt.Errorf("deltafifo: computing key: %w", err)
	}
	if f.transform != nil {
		if obj, err = f.transform(obj); err != nil {
			return "", obj, fmt.Errorf("deltafifo: transforming %q: %w", key, err)
		}
	}
	return key, obj, nil
}

// hasKeyLocked reports whether key has deltas in the FIFO or is known to
// the consumer. Requires f.mu held.
func (f *DeltaFIFO[T]) hasKeyLocked(key string) bool {
	return f.pendingLocked(key) || f.knownLocked(key)
}

// knownLocked reports whether key is known to the consumer. Requires f.mu
// held.
func (f *DeltaFIFO[T]) knownLocked(key string) bool {
	if f.known == nil {
		return false
	}
	_, ok := f.known.GetByKey(key)
	return ok
}

// pendingLocked reports whether key has deltas in the FIFO: queued, parked
// or in flight. Requires f.mu held.
func (f *DeltaFIFO[T]) pendingLocked(key string) bool {
	i, ok := f.lookupLocked(key, f.index.hash(key))
	// Without idle slots, no need to read the slot (a likely cache miss).
	return ok && (f.slots.idle == 0 || f.slots.at(i).state != slotIdle)
}

// lookupLocked returns the primary or idle slot of key, whose index hash is
// h, and reports whether the key has one. Requires f.mu held.
func (f *DeltaFIFO[T]) lookupLocked(key string, h uint32) (int32, bool) {
	i, ok, _ := get(&f.index, &f.slots, key, h)
	return i, ok
}

// addLocked appends d to key's pending deltas: to its queued slot, or, when
// the key is being processed, to the parked slot that collects what arrives
// meanwhile. If the key has no deltas, its slot is queued and Pop woken. It
// returns the key's primary slot and the slot that received d. Requires
// f.mu held.
func (f *DeltaFIFO[T]) addLocked(key string, d Delta[T]) (primary, got int32) {
	h := f.index.hash(key)
	primary, ok, pos := get(&f.index, &f.slots, key, h)
	return f.addFoundLocked(key, h, primary, ok, pos, d)
}

// addFoundLocked is addLocked for a key, whose hash is h, that get has
// just looked up: primary, ok and pos are its results. Requires f.mu held.
func (f *DeltaFIFO[T]) addFoundLocked(key string, h uint32, primary int32, ok bool, pos uint32, d Delta[T]) (int32, int32) {
	switch {
	case !ok:
		var unindexed bool
		primary, unindexed = f.newSlotLocked(key, slotQueued)
		if unindexed { // the index changed: pos may be stale
			f.index.put(h, primary)
		} else {
			f.index.putAt(pos, h, primary)
		}
		f.readyLocked(primary)
	case f.slots.at(primary).state == slotIdle:
		f.slots.unlink(primary)
		f.slots.at(primary).state = slotQueued
		f.readyLocked(primary)
	}
	return primary, f.appendLocked(primary, d)
}

// appendLocked appends d to the pending deltas of primary slot i, queued
// or in flight, and returns the slot that received it: i, or the parked
// slot of an in-flight one. Requires f.mu held.
func (f *DeltaFIFO[T]) appendLocked(i int32, d Delta[T]) int32 {
	s := f.slots.at(i)
	if s.state == slotInFlight {
		if s.next == 0 {
			j, _ := f.newSlotLocked(s.key, slotParked)
			f.slots.at(i).next = j // at again: newSlotLocked may have moved the slots
			f.parked++
		}
		i = f.slots.at(i).next
		s = f.slots.at(i)
	}
	s.deltas = appendDelta(s.deltas, d)
	return i
}

// newSlotLocked takes a slot for key and reports whether it unindexed the
// key of the idle slot it reused. Requires f.mu held.
func (f *DeltaFIFO[T]) newSlotLocked(key string, state slotState) (i int32, unindexed bool) {
	i = f.slots.take()
	s := f.slots.at(i)
	if s.state == slotIdle {
		f.index.remove(f.index.hash(s.key), i)
		unindexed = true
	}
	s.key, s.state = key, state
	return i, unindexed
}

// readyLocked appends queued slot i to the ready ring and wakes Pop.
// Requires f.mu held.
func (f *DeltaFIFO[T]) readyLocked(i int32) {
	f.ready.Push(i)
	// Pop waits only while the ring is empty, so the push that ends the
	// emptiness wakes every waiter; later pushes need not.
	if f.ready.Len() == 1 {
		f.cond.Broadcast()
	}
}

// Close closes the FIFO: Pop and PopBatch return the keys that are ready
// and then ErrClosed, and methods that would add deltas return ErrClosed.
// Processors running at the time finish normally, and may still requeue.
// Close is idempotent.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.dropWakeupLocked()
	f.cond.Broadcast()
}

// HasSynced reports whether the first Replace has been fully processed: every
// key it queued (listed objects and inferred deletions) has been popped and
// its processor has returned without requeueing. It is true from the start
// of the first Add, Update or Delete that came before any Replace.
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.populated && f.initialLeft == 0
}

// Len returns the number of keys that have deltas waiting to be popped.
// A key being processed counts only if new deltas arrived for it meanwhile.
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready.Len() + f.parked
}

// Idle reports whether the FIFO holds no delta: none waiting to be popped
// and none being processed. Only a producer's Add, Update, Delete, Replace
// or Resync, or a processor's requeue, ends idleness; Pop and PopBatch
// never do. So a FIFO fed by one goroutine, whose processor never
// requeues, stays idle until that goroutine records something: that
// goroutine may then apply a change to the consumer's state itself,
// knowing that no earlier delta is still on its way (the informer does so
// with watch events).
func (f *DeltaFIFO[T]) Idle() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready.Len() == 0 && f.inflight == 0
}

// ListKeys returns the keys that have deltas waiting to be popped: first the
// ready ones, in the order Pop takes them, then, in no particular order, the
// keys that are being processed and have new deltas, which become ready when
// their processor returns.
func (f *DeltaFIFO[T]) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, f.ready.Len()+f.parked)
	for i := range f.ready.Len() {
		keys = append(keys, f.slots.at(f.ready.At(i)).key)
	}
	for i := int32(1); i < f.slots.len(); i++ {
		if s := f.slots.at(i); s.state == slotInFlight && s.next != 0 {
			keys = append(keys, s.key)
		}
	}
	return keys
}
