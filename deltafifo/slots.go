package deltafifo

// slotState is where a slot is in its life cycle.
type slotState uint8

const (
	// slotFree: in the spare list, holding nothing.
	slotFree slotState = iota
	// slotIdle: in the spare list, holding no deltas but still indexed
	// under its key, so that the key's next delta reuses it without
	// touching the index. An idle slot is taken for another key only when
	// it is the oldest spare one.
	slotIdle
	// slotQueued: in the ready ring, waiting for Pop.
	slotQueued
	// slotInFlight: its deltas are with a processor.
	slotInFlight
	// slotParked: collects the deltas that arrive for a key while the
	// key's in-flight slot is being processed; not in the ready ring.
	slotParked
)

// spare reports whether a slot in state s is in the spare list.
func (s slotState) spare() bool { return s == slotFree || s == slotIdle }

// maxKeptDeltas is the largest delta buffer a released slot keeps for
// reuse; larger ones are dropped so that one burst does not pin memory
// forever.
const maxKeptDeltas = 16

// slot holds the pending deltas of one key. Slots live in pages (see
// slots) and are recycled, together with their delta buffers, so that a
// steady stream of Add and Pop allocates nothing here.
type slot[T any] struct {
	key    string     // empty only when free
	deltas []Delta[T] // oldest first; empty only when free or idle
	// next and prev link a spare (free or idle) slot into the spare list,
	// oldest first. For an in-flight slot, next is its parked slot. 0
	// means none: slot 0 is the list's sentinel, never used otherwise.
	next, prev int32
	// listed is the generation of the last Replace that listed the key.
	listed uint32
	state  slotState
	// initial reports whether the slot holds deltas of the first Replace.
	initial bool
}

// pageSize is the number of slots in a page, 1<<pageBits; pages after the
// first are allocated whole, the first grows up to it.
const (
	pageBits = 10
	pageSize = 1 << pageBits
)

// slots is the slot allocator: pages of slots, numbered across pages, with
// a circular, doubly linked list of spare slots through slot.next and
// slot.prev, whose sentinel is slot 0. Slots live in pages rather than one
// slice so that growing never copies them: a list of n objects costs n
// slots, not the 2n to 5n that successive slice growths allocate.
type slots[T any] struct {
	pages [][]slot[T]
	n     int32 // number of slots, the sentinel included
	spare int   // number of slots in the spare list
	idle  int   // number of idle slots
	low   int   // the fewest slots in the spare list since the last mark
	// buffers is memory for the delta buffers of new slots, window deltas
	// each, so that new slots do not allocate one buffer each: reserve fills
	// it for a Replace (one delta per slot), take refills it otherwise (two
	// deltas, an Add and an Update, per slot).
	buffers []Delta[T]
	window  int
}

func (ss *slots[T]) init() {
	ss.pages = [][]slot[T]{make([]slot[T], 8)}
	ss.n = 1
}

// at returns slot i. The pointer is valid until the next take.
func (ss *slots[T]) at(i int32) *slot[T] { return &ss.pages[i>>pageBits][i&(pageSize-1)] }

// len returns one past the highest slot index: slots 1 to len()-1 exist,
// in any state.
func (ss *slots[T]) len() int32 { return ss.n }

// live returns the number of slots that hold deltas.
func (ss *slots[T]) live() int { return int(ss.n) - 1 - ss.spare }

// peak returns the most slots that held deltas at once since the last
// mark. The slots only grow when none is spare, so that the fewest spare
// ones since the mark tell it.
func (ss *slots[T]) peak() int { return int(ss.n) - 1 - ss.low }

// mark starts the period that peak reports on.
func (ss *slots[T]) mark() { ss.low = ss.spare }

// reserve makes room for the delta buffers of n more slots, one delta
// each, without further allocation.
func (ss *slots[T]) reserve(n int) {
	if fresh := n - ss.spare; fresh > 0 && len(ss.buffers) < fresh {
		ss.buffers, ss.window = make([]Delta[T], fresh), 1
	}
}

// take returns the index of the oldest spare slot, unlinked from the spare
// list but otherwise unchanged (it may be idle: the caller must unindex its
// key and change its state), or of a new free slot if there is no spare
// one.
func (ss *slots[T]) take() int32 {
	if i := ss.pages[0][0].next; i != 0 {
		ss.unlink(i)
		return i
	}
	i := ss.n
	// Pages are full length. Only the first is ever short: it doubles, up
	// to a page, so that small FIFOs stay small.
	switch p, o := int(i>>pageBits), int(i&(pageSize-1)); {
	case p == len(ss.pages):
		ss.pages = append(ss.pages, make([]slot[T], pageSize))
	case o == len(ss.pages[p]):
		ss.pages[p] = append(ss.pages[p], make([]slot[T], o)...)
	}
	ss.n++
	if len(ss.buffers) == 0 {
		// Grow with the slots, up to a page's worth, so that their buffers
		// cost O(log n) allocations for small FIFOs and one per page beyond.
		ss.buffers, ss.window = make([]Delta[T], 2*min(max(16, int(i)/2), pageSize)), 2
	}
	s := ss.at(i)
	s.deltas = ss.buffers[:0:ss.window]
	ss.buffers = ss.buffers[ss.window:]
	return i
}

// unlink removes spare slot i from the spare list.
func (ss *slots[T]) unlink(i int32) {
	s := ss.at(i)
	if s.state == slotIdle {
		ss.idle--
	}
	ss.at(s.prev).next = s.next
	ss.at(s.next).prev = s.prev
	s.next, s.prev = 0, 0
	ss.spare--
	ss.low = min(ss.low, ss.spare)
}

// release empties slot i, clearing what it referenced, and appends it to
// the spare list, as idle (keeping its key) or free.
func (ss *slots[T]) release(i int32, state slotState) {
	s := ss.at(i)
	clear(s.deltas)
	if cap(s.deltas) > maxKeptDeltas {
		s.deltas = nil
	} else {
		s.deltas = s.deltas[:0]
	}
	if state == slotFree {
		s.key = ""
	} else {
		ss.idle++
	}
	s.state, s.initial, s.listed = state, false, 0
	sentinel := ss.at(0)
	last := sentinel.prev
	s.next, s.prev = 0, last
	ss.at(last).next = i
	sentinel.prev = i
	ss.spare++
}
