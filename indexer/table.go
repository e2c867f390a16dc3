package indexer

import (
	"hash/maphash"
	"slices"
)

// chunkBits sets the number of entries per chunk (128). A write after a
// snapshot copies at most two chunks, so the chunk size bounds the cost a
// snapshot imposes on writers; larger chunks make copies dearer, smaller
// ones make the chunk pointer slice longer.
const (
	chunkBits = 7
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
)

// entry is one stored object with the key it is stored under.
type entry[T any] struct {
	key string
	obj T
}

// chunk is a fixed-size block of the dense entry array.
type chunk[T any] struct {
	entries [chunkLen]entry[T]
	// epoch is the table epoch in which this chunk was allocated. A chunk
	// from an earlier epoch may be referenced by a snapshot and must be
	// copied before it is changed.
	epoch uint64
}

// table is the dense storage of an Indexer: entries 0..n-1 live in
// chunks[i>>chunkBits].entries[i&chunkMask], and pos maps each key to its
// entry's position. Deleting moves the last entry into the hole, so the
// entries stay dense and a walk never meets a gap; the indexes, which name
// entries by position, move it too.
//
// Snapshots share chunks with the table instead of copying entries. The
// table never changes a chunk or the chunks backing array that a snapshot
// may still read: such chunks carry an epoch older than the table's, and the
// table copies them before writing (copy-on-write).
//
// Methods that change the table need the Indexer's write lock; at, find,
// findBytes and snapshot need the read lock. A table no Indexer has
// published yet (Replace builds one) needs no lock.
type table[T any] struct {
	pos    positions
	seed   maphash.Seed // the hash seed of pos, the Indexer's
	chunks []*chunk[T]
	n      int
	// epoch advances when a write follows a snapshot: everything allocated
	// in an earlier epoch may be shared with that snapshot.
	epoch uint64
	// chunksEpoch is the epoch in which the chunks backing array was
	// allocated.
	chunksEpoch uint64
}

func newTable[T any](size int, seed maphash.Seed) table[T] {
	return table[T]{pos: newPositions(size), seed: seed}
}

// at returns the entry at position i.
func (t *table[T]) at(i int) *entry[T] {
	return &t.chunks[i>>chunkBits].entries[i&chunkMask]
}

// find returns the slot of key, whose hash is h, in pos and its entry's
// position.
func (t *table[T]) find(key string, h uint32) (slot, p int, ok bool) {
	if len(t.pos.slots) == 0 {
		return -1, 0, false
	}
	mask := len(t.pos.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.pos.slots[i]
		if s == 0 {
			return i, 0, false
		}
		if slotHash(s) == h && t.at(slotPos(s)).key == key {
			return i, slotPos(s), true
		}
	}
}

// findBytes is find for a key held in a byte slice.
func (t *table[T]) findBytes(key []byte, h uint32) (p int, ok bool) {
	if len(t.pos.slots) == 0 {
		return 0, false
	}
	mask := len(t.pos.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.pos.slots[i]
		if s == 0 {
			return 0, false
		}
		if slotHash(s) == h && t.at(slotPos(s)).key == string(key) {
			return slotPos(s), true
		}
	}
}

// begin starts a write. shared reports whether a snapshot was taken since
// the previous write, which opens a new epoch: everything allocated before
// is copied before it is changed.
func (t *table[T]) begin(shared bool) {
	if shared {
		t.epoch++
	}
}

// writableChunks makes the chunks backing array private to the table.
func (t *table[T]) writableChunks() {
	if t.chunksEpoch != t.epoch {
		t.chunks = slices.Clone(t.chunks)
		t.chunksEpoch = t.epoch
	}
}

// writable returns chunk ci ready to be changed, copying it first if a
// snapshot may share it.
func (t *table[T]) writable(ci int) *chunk[T] {
	c := t.chunks[ci]
	if c.epoch != t.epoch {
		t.writableChunks()
		cp := *c
		cp.epoch = t.epoch
		c = &cp
		t.chunks[ci] = c
	}
	return c
}

// put stores obj under key, whose hash is h, and returns its position and
// the object it replaced.
func (t *table[T]) put(key string, h uint32, obj T) (p int, old T, existed bool) {
	if _, p, ok := t.find(key, h); ok {
		return p, t.set(p, obj), true
	}
	return t.append(key, h, obj), old, false
}

// set replaces the object at position p and returns the old one.
func (t *table[T]) set(p int, obj T) (old T) {
	e := &t.writable(p >> chunkBits).entries[p&chunkMask]
	old, e.obj = e.obj, obj
	return old
}

// append stores a new entry, whose key is absent, at the end, and returns
// its position.
func (t *table[T]) append(key string, h uint32, obj T) int {
	p := t.n
	ci := p >> chunkBits
	if ci == len(t.chunks) {
		// Snapshots read only positions below their length, and the table
		// never shrinks a shared backing array in place, so appending a
		// pointer does not touch anything a snapshot reads.
		grown := cap(t.chunks) == len(t.chunks)
		t.chunks = append(t.chunks, &chunk[T]{epoch: t.epoch})
		if grown {
			t.chunksEpoch = t.epoch
		}
	}
	t.writable(ci).entries[p&chunkMask] = entry[T]{key: key, obj: obj}
	t.n++
	t.pos.insert(h, p)
	return p
}

// delete removes the entry at position p, whose key is in slot i of pos
// (as find returns them), moving the last entry into the hole, and returns
// the removed object and the position the moved entry came from.
func (t *table[T]) delete(i, p int) (old T, last int) {
	last = t.n - 1
	old = t.at(p).obj
	t.pos.delete(i)
	if p != last {
		moved := *t.at(last)
		j, _, _ := t.find(moved.key, hash(t.seed, moved.key))
		t.pos.move(j, p)
		t.writable(p >> chunkBits).entries[p&chunkMask] = moved
	}
	t.writable(last >> chunkBits).entries[last&chunkMask] = entry[T]{}
	t.n = last
	// Keep at most one empty chunk at the end, so that a store hovering
	// around a chunk boundary does not allocate on every write.
	if keep := t.n>>chunkBits + 1; len(t.chunks) > keep+1 {
		t.writableChunks()
		clear(t.chunks[keep:])
		t.chunks = t.chunks[:keep]
	}
	return old, last
}

// snapshot is a read-only view of the table at one instant: the chunk
// pointers and the number of entries.
type snapshot[T any] struct {
	chunks []*chunk[T]
	n      int
}

// snapshot returns a view of the current entries. Unless the table is
// private, it is valid only until the next write; Indexer.snapshot returns
// views that stay valid.
func (t *table[T]) snapshot() snapshot[T] {
	return snapshot[T]{chunks: t.chunks, n: t.n}
}

// at returns the entry at position i.
func (s snapshot[T]) at(i int) *entry[T] {
	return &s.chunks[i>>chunkBits].entries[i&chunkMask]
}
