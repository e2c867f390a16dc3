package deltafifo

import "slices"

// slotState is where a slot is in its life cycle.
type slotState uint8

const (
	// slotFree: on the free list, holding no deltas.
	slotFree slotState = iota
	// slotQueued: in the ready ring, waiting for Pop.
	slotQueued
	// slotInFlight: its deltas are with a processor.
	slotInFlight
	// slotParked: collects the deltas that arrive for a key while the
	// key's in-flight slot is being processed; not in the ready ring.
	slotParked
)

// maxKeptDeltas is the largest delta buffer a freed slot keeps for reuse;
// larger ones are dropped so that one burst does not pin memory forever.
const maxKeptDeltas = 16

// slot holds the pending deltas of one key. Slots live in one slice and are
// recycled, together with their delta buffers, so that a steady stream of
// Add and Pop allocates nothing here.
type slot[T any] struct {
	key    string
	deltas []Delta[T] // oldest first; never empty unless the slot is free
	// next links a free slot to the next free one, and an in-flight slot to
	// its parked slot; 0 means none (slot 0 is a sentinel, never used).
	next  int32
	state slotState
	// initial reports whether the slot holds deltas of the first Replace.
	initial bool
	// listed marks, during Replace, the keys present in the list.
	listed bool
}

// slots is the slot allocator: a slice with a free list threaded through
// slot.next. Index 0 is a sentinel so that next == 0 can mean "none".
type slots[T any] struct {
	s    []slot[T]
	free int32 // head of the free list, 0 if empty
	used int   // slots not free, excluding the sentinel
	// spare is memory for the delta buffers of new slots, window deltas
	// each, so that new slots do not allocate one buffer each: reserve fills
	// it for a Replace (one delta per slot), alloc refills it otherwise (two
	// deltas, an Add and an Update, per slot).
	spare  []Delta[T]
	window int
}

func (ss *slots[T]) init() { ss.s = make([]slot[T], 1) }

// at returns slot i. The pointer is valid until the next alloc.
func (ss *slots[T]) at(i int32) *slot[T] { return &ss.s[i] }

// len returns one past the highest slot index: slots 1 to len()-1 exist,
// free or not.
func (ss *slots[T]) len() int32 { return int32(len(ss.s)) }

// reserve makes room for n more slots, each with room for one delta,
// without further allocation.
func (ss *slots[T]) reserve(n int) {
	if fresh := n - (len(ss.s) - 1 - ss.used); fresh > 0 {
		ss.s = slices.Grow(ss.s, fresh)
		if len(ss.spare) < fresh {
			ss.spare, ss.window = make([]Delta[T], fresh), 1
		}
	}
}

// alloc returns the index of an empty slot for key in the given state.
func (ss *slots[T]) alloc(key string, state slotState) int32 {
	ss.used++
	i := ss.free
	if i != 0 {
		ss.free = ss.s[i].next
	} else {
		i = int32(len(ss.s))
		ss.s = append(ss.s, slot[T]{})
		if len(ss.spare) == 0 {
			// Grow with the slots, so that their buffers cost O(log n)
			// allocations in all.
			ss.spare, ss.window = make([]Delta[T], 2*max(16, len(ss.s)/2)), 2
		}
		ss.s[i].deltas = ss.spare[:0:ss.window]
		ss.spare = ss.spare[ss.window:]
	}
	s := &ss.s[i]
	s.key, s.state, s.next = key, state, 0
	return i
}

// release returns slot i to the free list, clearing what it referenced.
func (ss *slots[T]) release(i int32) {
	s := &ss.s[i]
	clear(s.deltas)
	if cap(s.deltas) > maxKeptDeltas {
		s.deltas = nil
	}
	*s = slot[T]{deltas: s.deltas[:0], next: ss.free}
	ss.free = i
	ss.used--
}
