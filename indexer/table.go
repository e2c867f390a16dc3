package indexer

import "hash/maphash"

// table is the dense storage of an Indexer: entry i has the key keys.at(i)
// and the object objs.at(i), and pos maps each key to its entry's
// position. Deleting moves the last entry into the hole, so the entries
// stay dense and a walk never meets a gap; the indexes, which name entries
// by position, move it too.
//
// Snapshots share the columns' blocks with the table instead of copying
// entries: a write copies a block first when a snapshot still being read
// may share it (see column and view.go).
//
// Methods that change the table need the Indexer's write lock; key, obj,
// find, findBytes and snapshot need the read lock. A table no Indexer has
// published yet (Replace builds one) needs no lock.
type table[T any] struct {
	pos  positions
	seed maphash.Seed // the hash seed of pos, the Indexer's
	keys column[string]
	objs column[T]
	n    int
	// epoch advances when a write follows a snapshot that is still being
	// read: everything allocated in an earlier epoch may be shared with
	// that snapshot. Writes change in place only what was allocated in
	// epoch floor or later; floor is 0 while no snapshot is being read.
	epoch, floor uint64
}

// newTable returns an empty table with room for size entries. Its objects
// are stored atomically if atomicObjs is set (see column.atomicItems).
func newTable[T any](size int, seed maphash.Seed, atomicObjs bool) *table[T] {
	t := &table[T]{seed: seed}
	t.pos.init(size)
	t.keys.publish()
	t.objs.publish()
	t.objs.atomicItems = atomicObjs
	return t
}

// key returns the key of the entry at position i.
func (t *table[T]) key(i int) string { return t.keys.at(i) }

// obj returns the object of the entry at position i.
func (t *table[T]) obj(i int) T { return t.objs.at(i) }

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
		if slotHash(s) == h && t.key(slotPos(s)) == key {
			return i, slotPos(s), true
		}
	}
}

// findBytes is find for a key held in a byte slice.
func (t *table[T]) findBytes(key []byte, h uint32) (slot, p int, ok bool) {
	if len(t.pos.slots) == 0 {
		return -1, 0, false
	}
	mask := len(t.pos.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.pos.slots[i]
		if s == 0 {
			return i, 0, false
		}
		if slotHash(s) == h && t.key(slotPos(s)) == string(key) {
			return i, slotPos(s), true
		}
	}
}

// lookup is find for the key of a write (see keyString).
func (t *table[T]) lookup(key string, kb []byte, h uint32) (slot, p int, ok bool) {
	if kb != nil {
		return t.findBytes(kb, h)
	}
	return t.find(key, h)
}

// own lets writes change every block in place: no snapshot is being read.
func (t *table[T]) own() { t.floor = 0 }

// share opens a new epoch, in which writes copy everything allocated
// before they change it: a snapshot that may share it is being read.
func (t *table[T]) share() {
	t.epoch++
	t.floor = t.epoch
}

// stamp returns what writes to the columns may change in place.
func (t *table[T]) stamp() stamp { return stamp{now: t.epoch, floor: t.floor} }

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
	return t.objs.set(p, obj, t.stamp())
}

// append stores a new entry, whose key is absent, at the end, and returns
// its position.
func (t *table[T]) append(key string, h uint32, obj T) int {
	p, st := t.n, t.stamp()
	if p>>blockBits == t.objs.nblocks {
		t.keys.grow(st)
		t.objs.grow(st)
	}
	t.keys.set(p, key, st)
	t.objs.set(p, obj, st)
	t.n++
	t.pos.insert(h, p)
	return p
}

// removeAt removes the entry at position p, whose key is in slot i of pos
// (as find returns them), moving the last entry into the hole, and returns
// the removed object and the position the moved entry came from.
func (t *table[T]) removeAt(i, p int) (old T, last int) {
	last, st := t.n-1, t.stamp()
	old = t.obj(p)
	t.pos.removeSlot(i)
	if p != last {
		key := t.key(last)
		j, _, _ := t.find(key, hash(t.seed, key))
		t.pos.move(j, p)
		t.keys.set(p, key, st)
		t.objs.set(p, t.obj(last), st)
	}
	var zero T
	t.keys.set(last, "", st)
	t.objs.set(last, zero, st)
	t.n = last
	// Keep at most one empty block at the end, so that a store hovering
	// around a block boundary does not allocate on every write.
	if keep := t.n>>blockBits + 1; t.objs.nblocks > keep+1 {
		t.keys.truncate(keep, st)
		t.objs.truncate(keep, st)
	}
	return old, last
}

// snapshot is a read-only view of the table at one instant: the
// directories of both columns and the number of entries.
type snapshot[T any] struct {
	keys []*dir[string]
	objs []*dir[T]
	n    int
}

// snapshot returns a view of the current entries. Unless the table is
// private, it is valid only until the next write; Indexer.snapshot returns
// views that stay valid until released.
func (t *table[T]) snapshot() snapshot[T] {
	return snapshot[T]{keys: t.keys.dirs, objs: t.objs.dirs, n: t.n}
}

// key returns the key of the entry at position i.
func (s snapshot[T]) key(i int) string {
	return blockAt(s.keys, i)[i&blockMask]
}

// obj returns the object of the entry at position i.
func (s snapshot[T]) obj(i int) T {
	return blockAt(s.objs, i)[i&blockMask]
}
