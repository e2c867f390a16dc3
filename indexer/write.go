package indexer

import (
	"fmt"
	"maps"
	"slices"

	"github.com/typedcache/typedcache/internal/objkey"
)

// inlineIndexes is how many indexes' values a write keeps on the stack.
const inlineIndexes = 4

// Add stores obj under its key, replacing any object already stored there.
// It is the same operation as Update; both names exist because callers
// think in events. If obj is a nil pointer, or the key function or an
// IndexFunc fails, Add returns an error and changes nothing.
func (x *Indexer[T]) Add(obj T) error {
	var buf [objkey.MaxStack]byte
	key, kb, h, err := x.writeKey(obj, buf[:0])
	if err != nil {
		return err
	}
	_, _, err = x.put(key, kb, h, obj, false)
	return err
}

// Update stores obj under its key, adding it if it is absent. See Add.
func (x *Indexer[T]) Update(obj T) error {
	return x.Add(obj)
}

// Delete removes the object stored under obj's key, if any. Only the key of
// obj matters, not its content. If obj is a nil pointer or the key function
// fails, Delete returns an error and changes nothing.
func (x *Indexer[T]) Delete(obj T) error {
	var buf [objkey.MaxStack]byte
	key, kb, h, err := x.writeKey(obj, buf[:0])
	if err != nil {
		return err
	}
	x.deleteKey(key, kb, h)
	return nil
}

// Put stores obj under key, which the caller has computed with the
// Indexer's key function, and returns the object it replaced. It lets a caller
// that already has the key (an informer processing a delta) avoid computing
// it again, and learn the previous object in the same operation.
//
// Put calls each IndexFunc once, on obj, without holding the lock, and
// never on the object it replaces: the Indexer remembers which values
// every stored object has. An index whose values are the stored object's,
// in the same order, costs one string comparison per value. If AddIndexers
// added indexes meanwhile, Put computes obj's values in them too before it
// writes. If an IndexFunc fails, Put returns the error and changes nothing.
func (x *Indexer[T]) Put(key string, obj T) (old T, existed bool, err error) {
	if x.zero() {
		return old, false, errZero
	}
	return x.put(key, nil, hash(x.seed, key), obj, false)
}

// PutPartial is Put, except that an IndexFunc that fails does not stop the
// write: obj is stored, and left out of each index whose function failed
// on it (as if it had no value there) until a later write indexes it. The
// error is an *IndexError for each such index (joined if there are
// several), and reports a write that was made: the store holds obj. It is
// how an informer keeps its cache the same as its source when an index
// function fails. A zero Indexer stores nothing and returns an error, as
// Put does.
func (x *Indexer[T]) PutPartial(key string, obj T) (old T, existed bool, err error) {
	if x.zero() {
		return old, false, errZero
	}
	return x.put(key, nil, hash(x.seed, key), obj, true)
}

// put is Put (PutPartial if partial is set) for the key of a write (see
// keyString), whose hash is h.
func (x *Indexer[T]) put(key string, kb []byte, h uint32, obj T, partial bool) (old T, existed bool, err error) {
	var buf [inlineIndexes][]string
	vals, failed := x.indexFuncs.Load().values(buf[:0], 0, obj, partial, nil)
	if failed != nil && !partial {
		return old, false, indexErrors(failed, keyString(key, kb))
	}
	for {
		x.mu.Lock()
		x.waitWritesLocked()
		if len(x.indexData) == len(vals) {
			break
		}
		// AddIndexers added indexes since: compute obj's values in them.
		x.mu.Unlock()
		if vals, failed = x.indexFuncs.Load().values(vals, len(vals), obj, partial, failed); failed != nil && !partial {
			return old, false, indexErrors(failed, keyString(key, kb))
		}
	}
	read := x.beginLocked()
	if _, p, ok := x.t.lookup(key, kb, h); ok {
		old, existed = x.t.set(p, obj), true
		for i := range x.indexData {
			x.indexData[i].update(int32(p), vals[i])
		}
	} else {
		p = x.t.append(keyString(key, kb), h, obj)
		for i := range x.indexData {
			x.indexData[i].insert(int32(p), vals[i])
		}
	}
	x.endLocked(read)
	x.mu.Unlock()
	if failed != nil {
		err = indexErrors(failed, keyString(key, kb))
	}
	return old, existed, err
}

// DeleteKey removes the object stored under key and returns it. It runs no
// user code and fails only on a zero Indexer.
func (x *Indexer[T]) DeleteKey(key string) (old T, existed bool, err error) {
	if x.zero() {
		return old, false, errZero
	}
	old, existed = x.deleteKey(key, nil, hash(x.seed, key))
	return old, existed, nil
}

// deleteKey is DeleteKey for the key of a write (see keyString), whose
// hash is h.
func (x *Indexer[T]) deleteKey(key string, kb []byte, h uint32) (old T, existed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.waitWritesLocked()
	i, p, ok := x.t.lookup(key, kb, h)
	if !ok {
		return old, false
	}
	read := x.beginLocked()
	x.moves.Add(1)
	old, last := x.t.removeAt(i, p)
	x.moves.Add(1)
	for j := range x.indexData {
		x.indexData[j].removeAt(int32(p), int32(last))
	}
	x.endLocked(read)
	return old, true
}

// Replace atomically replaces the whole content of the Indexer with objs
// and rebuilds every index. When two objects share a key, the later one
// wins. Everything is computed before the swap, without the lock; if an
// object is a nil pointer, or the key function or an IndexFunc fails,
// Replace returns an error and changes nothing.
func (x *Indexer[T]) Replace(objs []T) error {
	if x.zero() {
		return errZero
	}
	t := newTable[T](len(objs), x.seed, x.lockFree)
	for _, obj := range objs {
		if x.lockFree && isNilPointer(obj) {
			return errNilObject
		}
		key, err := x.key(obj)
		if err != nil {
			return err
		}
		t.put(key, hash(x.seed, key), obj)
	}
	var data []index
	for {
		// t is private: index it (again, for indexes added since) without
		// the lock.
		set := x.indexFuncs.Load()
		added := make([]index, len(set.funcs)-len(data))
		if err := indexAll(added, set, len(data), t.snapshot()); err != nil {
			return err
		}
		data = append(data, added...)
		x.mu.Lock()
		x.waitWritesLocked()
		if len(x.indexData) == len(data) {
			break
		}
		x.mu.Unlock()
	}
	defer x.mu.Unlock()
	read := x.beginLocked()
	t.epoch, t.floor = x.t.epoch, x.t.floor
	t.keys.adopt(t.epoch)
	t.objs.adopt(t.epoch)
	x.t = t
	x.live.Store(t)
	x.indexData = data
	x.endLocked(read)
	return nil
}

// indexAll builds dst[i-from], for each index i >= from of set, from the
// entries of s. It runs user code and must not be called under the lock.
func indexAll[T any](dst []index, set *indexSet[T], from int, s snapshot[T]) error {
	for j := range dst {
		dst[j] = newIndex()
		dst[j].of = make([]*bucket, 0, s.n)
	}
	var vals [][]string
	for p := range s.n {
		var failed []*IndexError
		if vals, failed = set.values(vals[:0], from, s.obj(p), false, nil); failed != nil {
			return indexErrors(failed, s.key(p))
		}
		for j, vs := range vals {
			dst[j].insert(int32(p), vs)
		}
	}
	return nil
}

// AddIndexers adds indexes, indexing every object already stored. A name
// that is already in use is an error wrapping ErrIndexExists, and a nil
// IndexFunc is an error too; in both cases, and if an IndexFunc fails (or
// the NamespaceIndex check does: see NamespaceIndex), nothing changes.
//
// AddIndexers waits for writes in progress and holds off new ones while it
// indexes the stored objects, calling each new IndexFunc once on each;
// readers are not held off.
func (x *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	if x.zero() {
		return errZero
	}
	if err := checkIndexers(indexers); err != nil {
		return err
	}
	if len(indexers) == 0 {
		return nil
	}
	x.holdWrites()
	defer x.resumeWrites()
	// Writers are held off, so the entries stay at the positions indexed
	// below, and the index set is cur until the lock is taken again.
	cur := x.indexFuncs.Load()
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		if _, ok := cur.byName[name]; ok {
			return fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
	}
	set := cur.with(indexers)
	added := make([]index, len(indexers))
	err := indexAll(added, set, len(cur.funcs), x.snapshot())
	x.release()
	if err != nil {
		return err
	}

	x.mu.Lock()
	x.indexData = append(x.indexData, added...)
	x.indexFuncs.Store(set)
	x.mu.Unlock()
	return nil
}
