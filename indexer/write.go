package indexer

import (
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
)

// inlineIndexes is how many indexes' values a write keeps on the stack.
const inlineIndexes = 4

// Add stores obj under its key, replacing any object already stored there.
// It is the same operation as Update; both names exist because callers
// think in events. If the KeyFunc or an IndexFunc fails, Add returns the
// error and changes nothing.
func (x *Indexer[T]) Add(obj T) error {
	key, err := x.key(obj)
	if err != nil {
		return err
	}
	_, _, err = x.Put(key, obj)
	return err
}

// Update stores obj under its key, adding it if it is absent. See Add.
func (x *Indexer[T]) Update(obj T) error {
	return x.Add(obj)
}

// Delete removes the object stored under obj's key, if any. Only the key of
// obj matters, not its content. If the KeyFunc or an IndexFunc fails,
// Delete returns the error and changes nothing.
func (x *Indexer[T]) Delete(obj T) error {
	key, err := x.key(obj)
	if err != nil {
		return err
	}
	_, _, err = x.DeleteKey(key)
	return err
}

// Put stores obj under key, which the caller has computed with the
// Indexer's KeyFunc, and returns the object it replaced. It lets a caller
// that already has the key (an informer processing a delta) avoid computing
// it again, and learn the previous object in the same operation.
//
// Put computes obj's index values without holding the lock. If their sum
// (a 64-bit hash) differs from that of the stored object's values, it also
// computes those, again without the lock: it reads the stored object,
// indexes it, and applies the write only if that object is still the one
// stored, retrying otherwise. An update whose values did not change thus
// calls each IndexFunc once, on obj. If an IndexFunc fails, Put returns
// the error and changes nothing.
func (x *Indexer[T]) Put(key string, obj T) (old T, existed bool, err error) {
	h := hash(x.seed, key)
	x.gate.RLock()
	defer x.gate.RUnlock()
	set := x.indexes.Load()
	var newBuf, oldBuf [inlineIndexes][]string
	newVals, err := set.values(newBuf[:0], 0, key, obj)
	if err != nil {
		return old, false, err
	}
	if len(set.funcs) == 0 {
		x.mu.Lock()
		x.beginLocked()
		old, existed = x.t.put(key, h, obj, 0)
		x.endLocked()
		x.mu.Unlock()
		return old, existed, nil
	}
	sum := valuesSum(x.seed, newVals)
	for {
		cur, p, ver, curSum, ok := x.read(key, h)
		same := ok && curSum == sum
		oldVals := oldBuf[:0]
		if ok && !same {
			if oldVals, err = set.values(oldVals, 0, key, cur); err != nil {
				return old, false, err
			}
		}
		x.mu.Lock()
		if x.t.unchanged(key, h, p, ver, ok) {
			x.beginLocked()
			if ok {
				x.t.set(p, obj, sum)
			} else {
				x.t.append(key, h, obj, sum)
			}
			if !same {
				for i, ix := range x.indices {
					var o []string
					if ok {
						o = oldVals[i]
					}
					ix.update(key, o, newVals[i])
				}
			}
			x.endLocked()
			x.mu.Unlock()
			return cur, ok, nil
		}
		x.mu.Unlock()
	}
}

// DeleteKey removes the object stored under key and returns it. If an
// IndexFunc fails on the stored object, DeleteKey returns the error and
// changes nothing.
func (x *Indexer[T]) DeleteKey(key string) (old T, existed bool, err error) {
	h := hash(x.seed, key)
	x.gate.RLock()
	defer x.gate.RUnlock()
	set := x.indexes.Load()
	if len(set.funcs) == 0 {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.beginLocked()
		old, existed = x.t.delete(key, h)
		x.endLocked()
		return old, existed, nil
	}
	var oldBuf [inlineIndexes][]string
	for {
		cur, p, ver, _, ok := x.read(key, h)
		if !ok {
			return old, false, nil
		}
		oldVals, err := set.values(oldBuf[:0], 0, key, cur)
		if err != nil {
			return old, false, err
		}
		x.mu.Lock()
		if x.t.unchanged(key, h, p, ver, true) {
			x.beginLocked()
			x.t.delete(key, h)
			for i, ix := range x.indices {
				ix.update(key, oldVals[i], nil)
			}
			x.endLocked()
			x.mu.Unlock()
			return cur, true, nil
		}
		x.mu.Unlock()
	}
}

// read returns the object stored under key, whose hash is h, and the sum
// of its index values, with what Put and DeleteKey need to check later,
// under the write lock, that it has not changed.
func (x *Indexer[T]) read(key string, h uint32) (obj T, p int, ver, sum uint64, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	p, ver, ok = x.t.lookup(key, h)
	if ok {
		e := x.t.at(p)
		obj, sum = e.obj, e.sum
	}
	return obj, p, ver, sum, ok
}

// Replace atomically replaces the whole content of the Indexer with objs
// and rebuilds every index. When two objects share a key, the later one
// wins. Everything is computed before the swap, without the lock; if the
// KeyFunc or an IndexFunc fails, Replace returns the error and changes
// nothing.
func (x *Indexer[T]) Replace(objs []T) error {
	x.gate.RLock()
	defer x.gate.RUnlock()
	set := x.indexes.Load()
	t := newTable[T](len(objs), x.seed)
	for _, obj := range objs {
		key, err := x.key(obj)
		if err != nil {
			return err
		}
		t.put(key, hash(x.seed, key), obj, 0)
	}
	indices := make([]index, len(set.funcs))
	for i := range indices {
		indices[i] = index{}
	}
	sums, err := indexAll(indices, set, 0, t.snapshot(), x.seed)
	if err != nil {
		return err
	}
	for i, sum := range sums {
		t.at(i).sum = sum
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	x.beginLocked()
	t.epoch, t.chunksEpoch, t.seq = x.t.epoch, x.t.epoch, x.t.seq
	for _, c := range t.chunks {
		c.epoch, c.ver = t.epoch, t.seq
	}
	x.t = t
	x.indices = indices
	x.endLocked()
	return nil
}

// indexAll adds every entry of s to dst[i-from] for each index i >= from
// of set, and returns the sum of each entry's values in every index of
// set, in entry order (nil if set has no indexes). It runs user code and
// must not be called under the lock.
func indexAll[T any](dst []index, set *indexSet[T], from int, s snapshot[T], seed maphash.Seed) ([]uint64, error) {
	if len(set.funcs) == 0 {
		return nil, nil
	}
	sums := make([]uint64, s.n)
	var vals [][]string
	for i := range s.n {
		e := s.at(i)
		var err error
		if vals, err = set.values(vals[:0], 0, e.key, e.obj); err != nil {
			return nil, err
		}
		sums[i] = valuesSum(seed, vals)
		for j, vs := range vals[from:] {
			for _, v := range vs {
				dst[j].add(v, e.key)
			}
		}
	}
	return sums, nil
}

// AddIndexers adds indexes, indexing every object already stored. A name
// that is already in use is an error wrapping ErrIndexExists, and a nil
// IndexFunc is an error too; in both cases, and if an IndexFunc fails,
// nothing changes.
//
// AddIndexers waits for writes in progress and holds off new ones while it
// indexes the stored objects, calling every IndexFunc, old and new, once on
// each; readers are not held off.
func (x *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	if err := checkIndexers(indexers); err != nil {
		return err
	}
	if len(indexers) == 0 {
		return nil
	}
	x.gate.Lock()
	defer x.gate.Unlock()
	cur := x.indexes.Load()
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		if _, ok := cur.byName[name]; ok {
			return fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
	}
	set := cur.with(indexers)
	added := make([]index, len(indexers))
	for i := range added {
		added[i] = index{}
	}
	sums, err := indexAll(added, set, len(cur.funcs), x.snapshot(), x.seed)
	if err != nil {
		return err
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	// Writers are held off, so the entries are still those indexed above,
	// at the same positions.
	x.beginLocked()
	for ci := range (x.t.n + chunkMask) >> chunkBits {
		c := x.t.writable(ci)
		for j := range min(chunkLen, x.t.n-ci<<chunkBits) {
			c.entries[j].sum = sums[ci<<chunkBits+j]
		}
	}
	x.endLocked()
	x.indices = append(x.indices, added...)
	x.indexes.Store(set)
	return nil
}
