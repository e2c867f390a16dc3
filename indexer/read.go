package indexer

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

// Get returns the object stored under obj's key. It fails only if the
// key function does.
func (x *Indexer[T]) Get(obj T) (T, bool, error) {
	key, err := x.key(obj)
	if err != nil {
		var zero T
		return zero, false, err
	}
	got, ok := x.GetByKey(key)
	return got, ok, nil
}

// GetByKey returns the object stored under key. It does not allocate.
func (x *Indexer[T]) GetByKey(key string) (T, bool) {
	if x.zero() {
		var zero T
		return zero, false
	}
	h := hash(x.seed, key)
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, p, ok := x.t.find(key, h)
	if !ok {
		var zero T
		return zero, false
	}
	return x.t.obj(p), true
}

// Len returns the number of stored objects.
func (x *Indexer[T]) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.t == nil { // a zero Indexer
		return 0
	}
	return x.t.n
}

// List returns the stored objects, in no particular order. It copies a
// snapshot, taken without the lock in constant time, and writers proceed
// while List fills the slice.
func (x *Indexer[T]) List() []T {
	s := x.snapshot()
	out := make([]T, s.n)
	copyTo(out, s.objs)
	x.release()
	return out
}

// ListKeys returns the keys of the stored objects, in no particular order,
// from a snapshot like List.
func (x *Indexer[T]) ListKeys() []string {
	s := x.snapshot()
	out := make([]string, s.n)
	copyTo(out, s.keys)
	x.release()
	return out
}

// All returns an iterator over the keys and objects stored when the
// iteration starts, in no particular order. It walks a snapshot: writes
// made during the iteration are not seen, no lock is held while yield runs,
// and yield may call any method of the Indexer, writes included. Taking the
// snapshot costs constant time; the walk does not allocate.
func (x *Indexer[T]) All() iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		s := x.snapshot()
		defer x.release()
		for start := 0; start < s.n; start += blockLen {
			keys, objs := blockAt(s.keys, start), blockAt(s.objs, start)
			for j := range min(blockLen, s.n-start) {
				if !yield(keys[j], objs[j]) {
					return
				}
			}
		}
	}
}

// Keys returns an iterator over the keys stored when the iteration starts,
// walking a snapshot like All.
func (x *Indexer[T]) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		s := x.snapshot()
		defer x.release()
		for start := 0; start < s.n; start += blockLen {
			keys := blockAt(s.keys, start)
			for j := range min(blockLen, s.n-start) {
				if !yield(keys[j]) {
					return
				}
			}
		}
	}
}

// Index returns the stored objects that share at least one value of the
// named index with obj, each once, in no particular order. The index
// function runs on obj before the lock is taken.
func (x *Indexer[T]) Index(indexName string, obj T) ([]T, error) {
	set := x.indexFuncs.Load()
	i, err := set.lookup(indexName)
	if err != nil {
		return nil, err
	}
	values, err := set.funcs[i](obj)
	if err != nil {
		return nil, fmt.Errorf("indexer: index %q: %w", indexName, err)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	ix := &x.indexData[i]
	if len(values) == 1 {
		return x.objectsLocked(ix.buckets[values[0]]), nil
	}
	var ps []int32
	for _, v := range values {
		if b := ix.buckets[v]; b != nil {
			ps = slices.AppendSeq(ps, b.members)
		}
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := make([]T, len(ps))
	for j, p := range ps {
		out[j] = x.t.obj(int(p))
	}
	return out, nil
}

// ByIndex returns the stored objects whose named index includes value, in
// no particular order. It holds the read lock while it copies them, for
// time proportional to their number.
func (x *Indexer[T]) ByIndex(indexName, value string) ([]T, error) {
	i, err := x.indexFuncs.Load().lookup(indexName)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.objectsLocked(x.indexData[i].buckets[value]), nil
}

// objectsLocked returns the objects of the entries in b, which may be nil.
func (x *Indexer[T]) objectsLocked(b *bucket) []T {
	if b == nil {
		return []T{}
	}
	out := make([]T, 0, b.len())
	for p := range b.members {
		out = append(out, x.t.obj(int(p)))
	}
	return out
}

// IndexKeys returns the sorted keys of the stored objects whose named index
// includes value.
func (x *Indexer[T]) IndexKeys(indexName, value string) ([]string, error) {
	i, err := x.indexFuncs.Load().lookup(indexName)
	if err != nil {
		return nil, err
	}
	keys := []string{}
	x.mu.RLock()
	if b := x.indexData[i].buckets[value]; b != nil {
		keys = make([]string, 0, b.len())
		for p := range b.members {
			keys = append(keys, x.t.key(int(p)))
		}
	}
	x.mu.RUnlock()
	slices.Sort(keys)
	return keys, nil
}

// ListIndexFuncValues returns, sorted, every value of the named index that
// at least one stored object has.
func (x *Indexer[T]) ListIndexFuncValues(indexName string) ([]string, error) {
	i, err := x.indexFuncs.Load().lookup(indexName)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	buckets := x.indexData[i].buckets
	values := slices.AppendSeq(make([]string, 0, len(buckets)), maps.Keys(buckets))
	x.mu.RUnlock()
	slices.Sort(values)
	return values, nil
}
