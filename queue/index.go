package queue

import "hash/maphash"

// itemIndex maps the items a queue knows about to their slots. It is an
// open-addressing hash table with linear probing and backward-shift
// deletion, kept at most half full, whose entries point into the slot
// arena, where the keys live. Compared with a Go map it hashes an item once
// per queue operation instead of once per map operation: Add looks up and
// inserts with one probe.
//
// In a large index, the entry of a deleted item is not removed at once: its
// slot is marked unused, which makes the entry stale (lookups skip it), and
// the entry is queued in pending. Once enough are pending they are removed together,
// after loading all their cache lines at once, so that a large queue pays
// the cache misses of many removals overlapped instead of one at a time
// under the lock. Done finds its slot among the items in flight
// (Queue.held) and so usually never touches the index itself.
type itemIndex struct {
	seed    maphash.Seed
	entries []entry // len is a power of two; noEntries until the first insert
	count   int     // entries in use, pending removal included
	pending []entry // stale entries to remove; equal entries are interchangeable
	touched int32   // keeps the loads of flush's first pass
}

type entry struct {
	hash uint32 // low bits of the item's hash; enough to place it, as len(entries) <= 2³²
	id   int32  // slot id + 1; 0 marks an empty entry
}

const minEntries = 16

// noEntries is the table of an index that holds nothing: one empty entry,
// never written, so that lookups need no check for an empty table.
var noEntries = make([]entry, 1)

// hash returns the hash of item in the index. It needs no lock, so callers
// compute it before taking one.
func (q *Queue[K]) hash(item K) uint32 {
	return uint32(maphash.Comparable(q.index.seed, item))
}

// lookupLocked returns the slot id of item, whose hash is given, or none.
func (q *Queue[K]) lookupLocked(item K, hash uint32) int32 {
	entries := q.index.entries
	if len(entries) == 0 { // only in a zero queue: the constructors set noEntries
		panic(notMade)
	}
	mask := len(entries) - 1
	for i := int(hash) & mask; ; i = (i + 1) & mask {
		e := entries[i]
		if e.id == 0 {
			return none
		}
		if s := &q.slots[e.id-1]; e.hash == hash && s.used && s.item == item {
			return e.id - 1
		}
	}
}

// insertLocked adds slot id, whose item has the given hash and is not in
// the index.
func (q *Queue[K]) insertLocked(hash uint32, id int32) {
	x := &q.index
	if 2*(x.count+1) > len(x.entries) {
		x.grow()
	}
	x.place(entry{hash: hash, id: id + 1})
	x.count++
}

func (x *itemIndex) place(e entry) {
	mask := len(x.entries) - 1
	i := int(e.hash) & mask
	for x.entries[i].id != 0 {
		i = (i + 1) & mask
	}
	x.entries[i] = e
}

func (x *itemIndex) grow() {
	old := x.entries
	x.entries = make([]entry, max(minEntries, 2*len(old)))
	for _, e := range old {
		if e.id != 0 {
			x.place(e)
		}
	}
}

// pendingMax is how many stale entries wait to be removed together.
const pendingMax = 64

// deferFrom is the number of entries from which removals are deferred:
// a smaller index stays in cache, where removing at once is cheaper. It is
// a variable so that tests can defer every removal.
var deferFrom = defaultDeferFrom

const defaultDeferFrom = 1 << 15

// unlink removes e, whose slot was just freed, or queues its removal.
func (x *itemIndex) unlink(e entry) {
	if len(x.entries) < deferFrom {
		x.remove(e)
		return
	}
	if x.pending == nil {
		x.pending = make([]entry, 0, pendingMax)
	}
	x.pending = append(x.pending, e)
	if len(x.pending) == pendingMax {
		x.flush()
	}
}

// flush removes the pending entries.
func (x *itemIndex) flush() {
	mask := len(x.entries) - 1
	// The loads of this loop are independent, so the processor overlaps
	// their cache misses; the removals below then find their lines cached.
	var touched int32
	for _, e := range x.pending {
		touched |= x.entries[int(e.hash)&mask].id
	}
	x.touched = touched
	for _, e := range x.pending {
		x.remove(e)
	}
	x.pending = x.pending[:0]
}

// remove removes e, or one of its equals, from the index.
func (x *itemIndex) remove(e entry) {
	mask := len(x.entries) - 1
	for i := int(e.hash) & mask; x.entries[i].id != 0; i = (i + 1) & mask {
		if x.entries[i] == e {
			x.removeAt(i)
			return
		}
	}
}

// removeAt empties the entry at pos and shifts later entries of its probe
// run back, so that lookups never need tombstones.
func (x *itemIndex) removeAt(pos int) {
	mask := len(x.entries) - 1
	hole := pos
	for j := (hole + 1) & mask; x.entries[j].id != 0; j = (j + 1) & mask {
		home := int(x.entries[j].hash) & mask
		// The entry at j may fill the hole if the hole lies on its probe
		// path, from home to j.
		if (j-home)&mask >= (j-hole)&mask {
			x.entries[hole] = x.entries[j]
			hole = j
		}
	}
	x.entries[hole] = entry{}
	x.count--
}
