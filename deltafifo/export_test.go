package deltafifo

import "fmt"

// CheckInvariants verifies the internal structure of f: the index maps
// each key to its queued, in-flight or idle slot; the ready ring holds
// exactly the queued slots; parked slots hang off in-flight slots of their
// key; the spare list links exactly the free and idle slots, which hold no
// deltas; and the counters agree with the slots.
func (f *DeltaFIFO[T]) CheckInvariants() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	inRing := make(map[int32]bool)
	for k := range f.ready.Len() {
		i := f.ready.At(k)
		if inRing[i] {
			return fmt.Errorf("slot %d twice in the ready ring", i)
		}
		inRing[i] = true
	}
	inSpare := make(map[int32]bool)
	for prev, i := int32(0), f.slots.at(0).next; i != 0; prev, i = i, f.slots.at(i).next {
		if inSpare[i] || len(inSpare) > int(f.slots.len()) {
			return fmt.Errorf("spare list loops at slot %d", i)
		}
		inSpare[i] = true
		if p := f.slots.at(i).prev; p != prev {
			return fmt.Errorf("spare slot %d: prev %d, want %d", i, p, prev)
		}
	}
	if len(inSpare) != f.slots.spare {
		return fmt.Errorf("%d slots in the spare list, counter says %d", len(inSpare), f.slots.spare)
	}
	idle := 0
	for i := int32(1); i < f.slots.len(); i++ {
		if f.slots.at(i).state == slotIdle {
			idle++
		}
	}
	if idle != f.slots.idle {
		return fmt.Errorf("%d idle slots, counter says %d", idle, f.slots.idle)
	}
	parkedBy := make(map[int32]int32)
	for i := int32(1); i < f.slots.len(); i++ {
		if s := f.slots.at(i); s.state == slotInFlight && s.next != 0 {
			parkedBy[s.next] = i
		}
	}
	indexed, parked, inflight, initial := 0, 0, 0, 0
	for i := int32(1); i < f.slots.len(); i++ {
		s := f.slots.at(i)
		if inSpare[i] != s.state.spare() {
			return fmt.Errorf("slot %d (%q): state %d, in spare list %v", i, s.key, s.state, inSpare[i])
		}
		if inRing[i] != (s.state == slotQueued) {
			return fmt.Errorf("slot %d (%q): state %d, in ring %v", i, s.key, s.state, inRing[i])
		}
		if s.initial {
			initial++
		}
		if s.state.spare() {
			if len(s.deltas) != 0 || s.initial {
				return fmt.Errorf("spare slot %d (%q) holds %d deltas", i, s.key, len(s.deltas))
			}
			if (s.state == slotFree) != (s.key == "") {
				return fmt.Errorf("spare slot %d: state %d with key %q", i, s.state, s.key)
			}
		} else if len(s.deltas) == 0 {
			return fmt.Errorf("slot %d (%q, state %d) holds no deltas", i, s.key, s.state)
		}
		for k := 1; k < len(s.deltas); k++ {
			if s.deltas[k-1].Type == Deleted && s.deltas[k].Type == Deleted {
				return fmt.Errorf("slot %d (%q): consecutive deletions", i, s.key)
			}
		}
		switch s.state {
		case slotInFlight:
			inflight++
			indexed++
			if j, ok := f.lookupLocked(s.key, f.index.hash(s.key)); !ok || j != i {
				return fmt.Errorf("slot %d (%q): index says %d, %v", i, s.key, j, ok)
			}
		case slotFree:
		case slotParked:
			parked++
			if j := parkedBy[i]; j == 0 || f.slots.at(j).key != s.key {
				return fmt.Errorf("parked slot %d (%q) hangs off slot %d", i, s.key, j)
			}
		default:
			indexed++
			if j, ok := f.lookupLocked(s.key, f.index.hash(s.key)); !ok || j != i {
				return fmt.Errorf("slot %d (%q): index says %d, %v", i, s.key, j, ok)
			}
		}
	}
	if indexed != f.index.n {
		return fmt.Errorf("%d indexed slots, %d keys in the index", indexed, f.index.n)
	}
	if inflight != f.inflight {
		return fmt.Errorf("%d in-flight slots, counter says %d", inflight, f.inflight)
	}
	if parked != f.parked {
		return fmt.Errorf("%d parked slots, counter says %d", parked, f.parked)
	}
	if initial != f.initialLeft {
		return fmt.Errorf("%d initial slots, counter says %d", initial, f.initialLeft)
	}
	return nil
}

// SetKeepSlots sets the number of slots a drained f always keeps (1024 by
// default), so that tests can make it release small sets of slots.
func (f *DeltaFIFO[T]) SetKeepSlots(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.release.keep = n
}

// Slots returns the number of slots f holds, in any state.
func (f *DeltaFIFO[T]) Slots() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int(f.slots.len()) - 1
}

// KeepsWakeup reports whether f keeps a context registration for its next
// waiting popper.
func (f *DeltaFIFO[T]) KeepsWakeup() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wake != nil
}

// KeyIndex exposes a FIFO's key index, with hashes chosen by the caller,
// so that tests can force collisions and runs that wrap around the table.
type KeyIndex struct {
	x     keyIndex
	slots slots[int]
}

// NewKeyIndex returns an empty KeyIndex.
func NewKeyIndex() *KeyIndex {
	k := &KeyIndex{x: newKeyIndex()}
	k.slots.init()
	return k
}

// Put indexes key, which must not be indexed, under hash h.
func (k *KeyIndex) Put(key string, h uint32) {
	_, _, pos := get(&k.x, &k.slots, key, h)
	i := k.slots.take()
	k.slots.at(i).key = key
	k.x.putAt(pos, h, i)
}

// Has reports whether key is indexed under hash h.
func (k *KeyIndex) Has(key string, h uint32) bool {
	i, ok, _ := get(&k.x, &k.slots, key, h)
	return ok && k.slots.at(i).key == key
}

// Remove unindexes key, which must be indexed under hash h.
func (k *KeyIndex) Remove(key string, h uint32) {
	i, _, _ := get(&k.x, &k.slots, key, h)
	k.x.remove(h, i)
}

// Len returns the number of indexed keys.
func (k *KeyIndex) Len() int { return k.x.n }

// Reset empties the index, making room for n keys.
func (k *KeyIndex) Reset(n int) { k.x.reset(n) }

// ReleaseBlock is the number of drains in a block of the release policy:
// a drained FIFO remembers the most slots it needed over the last
// ReleaseBlock to 2*ReleaseBlock-1 drains.
const ReleaseBlock = releaseBlock

// ReleaseDecisions runs a release policy that keeps keep slots through
// drains of a FIFO of sizes[i] slots after which peaks[i] slots had held
// deltas at once, and returns its decision at each.
func ReleaseDecisions(keep int, sizes, peaks []int) []bool {
	p := releasePolicy{keep: keep}
	out := make([]bool, len(sizes))
	for i := range sizes {
		out[i] = p.drained(sizes[i], peaks[i])
	}
	return out
}

// UsesObjectKeys reports whether f builds the keys of its deltas on the
// stack, having recognised keys.Of as its key function.
func UsesObjectKeys[T any](f *DeltaFIFO[T]) bool { return f.objectKeys }
