package queue

import "hash/maphash"

// itemIndex maps the items a queue knows about to their slots. It is an
// open-addressing hash table with linear probing and backward-shift
// deletion, kept at most half full, whose entries point into the slot
// arena, where the keys live. Compared with a Go map it hashes an item once
// per queue operation instead of once per map operation: Add looks up and
// inserts with one probe, Done finds and deletes with one.
type itemIndex struct {
	seed    maphash.Seed
	entries []entry // len is zero or a power of two
	count   int     // entries in use
}

type entry struct {
	hash uint32 // low bits of the item's hash; enough to place it, as len(entries) <= 2³²
	id   int32  // slot id + 1; 0 marks an empty entry
}

const minEntries = 16

// hash returns the hash of item in the index. It needs no lock, so callers
// compute it before taking one.
func (q *Queue[K]) hash(item K) uint32 {
	return uint32(maphash.Comparable(q.index.seed, item))
}

// lookupLocked returns the slot id and entry position of item, whose hash
// is given, or none and -1.
func (q *Queue[K]) lookupLocked(item K, hash uint32) (id int32, pos int) {
	entries := q.index.entries
	mask := len(entries) - 1
	for i := int(hash) & mask; len(entries) > 0; i = (i + 1) & mask {
		e := entries[i]
		if e.id == 0 {
			break
		}
		if e.hash == hash && q.slots[e.id-1].item == item {
			return e.id - 1, i
		}
	}
	return none, -1
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
