package queue

import (
	"hash/maphash"
	"sync/atomic"
)

// itemIndex maps the items a queue knows about to their slots. It is an
// open-addressing hash table with linear probing and backward-shift
// deletion, kept at most half full, whose entries point into the slot
// arena, where the keys live. Compared with a Go map it hashes an item once
// per queue operation instead of once per map operation: Add looks up and
// inserts with one probe, Done finds and deletes with one.
//
// The table is changed only with the queue's lock held, but it is published
// and its entries are written atomically so that [Queue.warm] may read it
// without the lock: in a large queue the entry of an item is a cache miss,
// better taken before the lock than while holding it.
type itemIndex struct {
	seed  maphash.Seed
	table atomic.Pointer[[]entry] // nil or a slice whose len is a power of two
	count int                     // entries in use
}

// entry is the slot id + 1 of an item, 0 for an empty entry, in its low 32
// bits, and the low 32 bits of the item's hash, enough to place it as the
// table has at most 2³² entries, in its high 32 bits.
type entry struct{ v atomic.Uint64 }

func packEntry(hash uint32, id int32) uint64 { return uint64(hash)<<32 | uint64(uint32(id+1)) }

func (e *entry) load() (hash uint32, id int32) {
	v := e.v.Load()
	return uint32(v >> 32), int32(uint32(v)) - 1
}

const minEntries = 16

// hash returns the hash of item in the index. It needs no lock, so callers
// compute it before taking one.
func (q *Queue[K]) hash(item K) uint32 {
	return uint32(maphash.Comparable(q.index.seed, item))
}

// warm reads, without the lock, the index entry where the lookup of an item
// with the given hash starts, so that the lookup made under the lock finds
// it in the cache.
func (q *Queue[K]) warm(hash uint32) {
	if t := q.index.table.Load(); t != nil {
		(*t)[int(hash)&(len(*t)-1)].v.Load()
	}
}

// entries returns the table, which may be empty.
func (x *itemIndex) entries() []entry {
	if t := x.table.Load(); t != nil {
		return *t
	}
	return nil
}

// lookupLocked returns the slot id and entry position of item, whose hash
// is given, or none and -1.
func (q *Queue[K]) lookupLocked(item K, hash uint32) (id int32, pos int) {
	entries := q.index.entries()
	mask := len(entries) - 1
	for i := int(hash) & mask; len(entries) > 0; i = (i + 1) & mask {
		h, id := entries[i].load()
		if id == none {
			break
		}
		if h == hash && q.slots[id].item == item {
			return id, i
		}
	}
	return none, -1
}

// insertLocked adds slot id, whose item has the given hash and is not in
// the index.
func (q *Queue[K]) insertLocked(hash uint32, id int32) {
	x := &q.index
	entries := x.entries()
	if 2*(x.count+1) > len(entries) {
		entries = x.grow(entries)
	}
	place(entries, packEntry(hash, id))
	x.count++
}

func place(entries []entry, v uint64) {
	mask := len(entries) - 1
	i := int(v>>32) & mask
	for entries[i].v.Load() != 0 {
		i = (i + 1) & mask
	}
	entries[i].v.Store(v)
}

// grow moves the entries of old into a table twice as large, publishes it
// and returns it.
func (x *itemIndex) grow(old []entry) []entry {
	entries := make([]entry, max(minEntries, 2*len(old)))
	for i := range old {
		if v := old[i].v.Load(); v != 0 {
			place(entries, v)
		}
	}
	x.table.Store(&entries)
	return entries
}

// release drops the table; the index must be empty.
func (x *itemIndex) release() { x.table.Store(nil) }

// removeAt empties the entry at pos and shifts later entries of its probe
// run back, so that lookups never need tombstones.
func (x *itemIndex) removeAt(pos int) {
	entries := x.entries()
	mask := len(entries) - 1
	hole := pos
	for j := (hole + 1) & mask; ; j = (j + 1) & mask {
		v := entries[j].v.Load()
		if v == 0 {
			break
		}
		home := int(v>>32) & mask
		// The entry at j may fill the hole if the hole lies on its probe
		// path, from home to j.
		if (j-home)&mask >= (j-hole)&mask {
			entries[hole].v.Store(v)
			hole = j
		}
	}
	entries[hole].v.Store(0)
	x.count--
}
