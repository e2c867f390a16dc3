package deltafifo

import "hash/maphash"

// keyIndex maps keys to slot numbers. It is an open-addressing hash table
// with linear probing whose entries hold a slot number and 32 bits of the
// key's hash; the keys themselves live in the slots. An entry costs 8
// bytes, against about 24 for a map[string]int32, and growing rehashes no
// key: the stored hash bits place every entry.
type keyIndex struct {
	seed    maphash.Seed
	entries []indexEntry // empty, or a power of two long
	n       int          // number of keys
}

// indexEntry is one key of a keyIndex; slot 0 marks an empty entry.
type indexEntry struct {
	hash uint32
	slot int32
}

// minIndexEntries is the size of a keyIndex's first table. A FIFO whose
// consumer keeps up holds a few keys at a time, idle ones included: in a
// table this size their runs are short, so that a lookup or a removal
// probes about one entry.
const minIndexEntries = 64

func newKeyIndex() keyIndex { return keyIndex{seed: maphash.MakeSeed()} }

// hash returns the hash bits of key that the index stores and places it by.
func (x *keyIndex) hash(key string) uint32 { return uint32(maphash.String(x.seed, key)) }

// hashBytes returns hash(string(key)).
func (x *keyIndex) hashBytes(key []byte) uint32 { return uint32(maphash.Bytes(x.seed, key)) }

// get returns the slot of key, a string or the bytes of one, whose hash is
// h, and reports whether key is indexed. If it is not, pos is where putAt
// can index it.
func get[T any, K string | []byte](x *keyIndex, ss *slots[T], key K, h uint32) (slot int32, ok bool, pos uint32) {
	mask := uint32(len(x.entries) - 1)
	if x.n == 0 {
		return 0, false, h & mask
	}
	for p := h & mask; ; p = (p + 1) & mask {
		e := x.entries[p]
		if e.slot == 0 {
			return 0, false, p
		}
		if e.hash == h && ss.at(e.slot).key == string(key) {
			return e.slot, true, p
		}
	}
}

// put indexes slot under a key with hash h that is not indexed yet.
func (x *keyIndex) put(h uint32, slot int32) {
	x.putAt(h&uint32(len(x.entries)-1), h, slot)
}

// putAt is put for a key that get just reported missing at pos, with no
// change to the index since.
func (x *keyIndex) putAt(pos, h uint32, slot int32) {
	if (x.n+1)*4 > len(x.entries)*3 { // keep the load at most 3/4
		x.resize(max(minIndexEntries, 2*len(x.entries)))
		pos = h & uint32(len(x.entries)-1)
	}
	x.insert(pos, indexEntry{hash: h, slot: slot})
	x.n++
}

// insert places e in the first empty entry from pos on. The table must
// have one.
func (x *keyIndex) insert(pos uint32, e indexEntry) {
	mask := uint32(len(x.entries) - 1)
	for x.entries[pos].slot != 0 {
		pos = (pos + 1) & mask
	}
	x.entries[pos] = e
}

// remove unindexes slot, indexed under a key with hash h.
func (x *keyIndex) remove(h uint32, slot int32) {
	mask := uint32(len(x.entries) - 1)
	p := h & mask
	for x.entries[p].slot != slot {
		p = (p + 1) & mask
	}
	// Move back every later entry of the run that the hole would cut off
	// from its home position, so that lookups need no tombstones.
	for q := p; ; {
		q = (q + 1) & mask
		e := x.entries[q]
		if e.slot == 0 {
			break
		}
		// e may fill the hole at p unless its home lies cyclically in (p, q].
		if home := e.hash & mask; (q-home)&mask >= (q-p)&mask {
			x.entries[p] = e
			p = q
		}
	}
	x.entries[p] = indexEntry{}
	x.n--
}

// resize moves the entries to a table of size entries, a power of two
// larger than the number of keys.
func (x *keyIndex) resize(size int) {
	old := x.entries
	x.entries = make([]indexEntry, size)
	mask := uint32(size - 1)
	for _, e := range old {
		if e.slot != 0 {
			x.insert(e.hash&mask, e)
		}
	}
}

// reset empties the index and makes room for n keys.
func (x *keyIndex) reset(n int) {
	size := minIndexEntries
	for size*3 < n*4 {
		size *= 2
	}
	x.entries = make([]indexEntry, size)
	x.n = 0
}
