package indexer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// IndexFunc computes the values under which obj is found in one index. An
// object may have any number of values, including none; duplicates count
// once. The Indexer calls it once on each object it is given to store (and
// on each stored object when AddIndexers adds its index), never under the
// lock, and never again on a stored object: it remembers the values. The
// Indexer neither modifies nor keeps the returned slice, only the strings
// in it, so an IndexFunc may return a slice it shares between calls.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers maps index names to the functions that compute them.
type Indexers[T any] map[string]IndexFunc[T]

var (
	// ErrUnknownIndex is returned, wrapped with the name, when a method is
	// asked for an index the Indexer does not have.
	ErrUnknownIndex = errors.New("indexer: unknown index")
	// ErrIndexExists is returned, wrapped with the name, by AddIndexers for
	// an index name that is already in use.
	ErrIndexExists = errors.New("indexer: index already exists")
)

// indexSet is an immutable, ordered set of index functions. Index i of the
// set is stored in Indexer.indexData[i]; AddIndexers appends, so a position
// never changes meaning.
type indexSet[T any] struct {
	names  []string
	funcs  []IndexFunc[T]
	byName map[string]int
	// checkNS is one more than the position of an index whose values
	// values checks with checkNamespace (see NamespaceIndex), 0 if none.
	checkNS int
}

// with returns a set holding s's indexes followed by add's, in name order so
// that the layout does not depend on map iteration.
func (s *indexSet[T]) with(add Indexers[T]) *indexSet[T] {
	n := &indexSet[T]{
		names:   slices.Clone(s.names),
		funcs:   slices.Clone(s.funcs),
		byName:  maps.Clone(s.byName),
		checkNS: s.checkNS,
	}
	if n.byName == nil {
		n.byName = make(map[string]int, len(add))
	}
	for _, name := range slices.Sorted(maps.Keys(add)) {
		if needsNamespaceCheck(name, add[name]) {
			n.checkNS = len(n.names) + 1
		}
		n.byName[name] = len(n.names)
		n.names = append(n.names, name)
		n.funcs = append(n.funcs, add[name])
	}
	return n
}

// lookup returns the position of the named index.
func (s *indexSet[T]) lookup(name string) (int, error) {
	if s == nil { // a zero Indexer
		return 0, errZero
	}
	i, ok := s.byName[name]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownIndex, name)
	}
	return i, nil
}

// values computes obj's values in every index from position from onwards,
// appending them to dst. An IndexFunc that fails is appended to failed,
// without the key, and ends the computation unless partial is set; then
// the failed index's values are nil and the others are computed. It runs
// user code and must not be called under the lock.
func (s *indexSet[T]) values(dst [][]string, from int, obj T, partial bool, failed []*IndexError) ([][]string, []*IndexError) {
	for i := from; i < len(s.funcs); i++ {
		v, err := s.funcs[i](obj)
		if err == nil && i+1 == s.checkNS {
			err = checkNamespace(obj, v)
		}
		if err != nil {
			failed = append(failed, &IndexError{Index: s.names[i], Err: err})
			if !partial {
				return dst, failed
			}
			v = nil
		}
		dst = append(dst, v)
	}
	return dst, failed
}

// IndexError is the failure of an IndexFunc (or of the NamespaceIndex
// check) on one object. The writes return it, wrapped or joined with
// others; errors.As finds it.
type IndexError struct {
	// Index is the name of the index.
	Index string
	// Key is the key of the object.
	Key string
	// Err is the IndexFunc's error.
	Err error
}

// Error returns "indexer: index <name> of <key>: <Err>".
func (e *IndexError) Error() string {
	return fmt.Sprintf("indexer: index %q of %q: %v", e.Index, e.Key, e.Err)
}

// Unwrap returns Err.
func (e *IndexError) Unwrap() error { return e.Err }

// indexErrors sets the key of the failures and returns them as one error,
// or nil if there are none.
func indexErrors(failed []*IndexError, key string) error {
	switch len(failed) {
	case 0:
		return nil
	case 1:
		failed[0].Key = key
		return failed[0]
	}
	errs := make([]error, len(failed))
	for i, f := range failed {
		f.Key = key
		errs[i] = f
	}
	return errors.Join(errs...)
}

// index is one secondary index. It maps each value to the bucket of the
// entries that have it, and remembers each entry's buckets, so that an
// update compares the new values with the buckets instead of calling the
// IndexFunc on the object it replaces, and a delete runs no user code.
//
// Entries are named by their table positions: when the table moves its
// last entry into a hole, the index moves it too (see removeAt).
type index struct {
	buckets map[string]*bucket
	// of[p] is the bucket of entry p if it has exactly one value, nil if
	// it has none or several; len(of) is the number of entries.
	of []*bucket
	// multi[p] holds the buckets of entry p if it has two or more distinct
	// values, without duplicates.
	multi map[int32][]*bucket
}

func newIndex() index {
	return index{buckets: map[string]*bucket{}}
}

// join adds entry p to the bucket of value v, creating it if needed.
func (ix *index) join(v string, p int32) *bucket {
	b := ix.buckets[v]
	if b == nil {
		b = &bucket{value: v, one: p}
		ix.buckets[v] = b
		return b
	}
	b.add(p)
	return b
}

// leave removes entry p from b, deleting b if that empties it.
func (ix *index) leave(b *bucket, p int32) {
	if b.remove(p) {
		delete(ix.buckets, b.value)
	}
}

// insert indexes entry p, the entry after the last one, under vals.
func (ix *index) insert(p int32, vals []string) {
	ix.of = append(ix.of, nil)
	ix.assign(p, vals)
}

// assign adds entry p, which is in no bucket, to the buckets of vals and
// records them.
func (ix *index) assign(p int32, vals []string) {
	if len(vals) == 1 {
		ix.of[p] = ix.join(vals[0], p)
		return
	}
	var buf [4]*bucket
	bs := buf[:0]
	for i, v := range vals {
		if !slices.Contains(vals[:i], v) {
			bs = append(bs, ix.join(v, p))
		}
	}
	ix.record(p, bs)
}

// record remembers that entry p is in the buckets bs, which it does not
// keep.
func (ix *index) record(p int32, bs []*bucket) {
	ix.of[p] = nil
	if len(bs) == 1 {
		ix.of[p] = bs[0]
	}
	if len(bs) < 2 {
		delete(ix.multi, p)
		return
	}
	if ix.multi == nil {
		ix.multi = map[int32][]*bucket{}
	}
	ix.multi[p] = slices.Clone(bs)
}

// unassign removes entry p from all its buckets and forgets them.
func (ix *index) unassign(p int32) {
	if b := ix.of[p]; b != nil {
		ix.leave(b, p)
		ix.of[p] = nil
		return
	}
	if bs, ok := ix.multi[p]; ok {
		for _, b := range bs {
			ix.leave(b, p)
		}
		delete(ix.multi, p)
	}
}

// smallDiff is the largest product of old and new value counts for which
// update compares values pairwise instead of moving the entry out of all
// its buckets and into the new ones.
const smallDiff = 64

// update moves entry p to the buckets of vals, touching only the buckets
// of the values that changed. When the values are those the entry already
// has, in the same order, it does nothing but compare them.
func (ix *index) update(p int32, vals []string) {
	var one [1]*bucket
	var old []*bucket
	if b := ix.of[p]; b != nil {
		if len(vals) == 1 {
			if b.value != vals[0] {
				ix.leave(b, p)
				ix.of[p] = ix.join(vals[0], p)
			}
			return
		}
		one[0] = b
		old = one[:]
	} else {
		old = ix.multi[p]
		if len(old) == len(vals) && sameValues(old, vals) {
			return // the same values, or none
		}
	}
	if len(old)*len(vals) > smallDiff {
		ix.unassign(p)
		ix.assign(p, vals)
		return
	}
	// Join the new buckets before leaving the old ones, and keep the
	// buckets of values that stay, so that no bucket the entry remains in
	// is emptied and re-created.
	var buf [4]*bucket
	bs := buf[:0]
	for i, v := range vals {
		if slices.Contains(vals[:i], v) {
			continue
		}
		if j := slices.IndexFunc(old, func(b *bucket) bool { return b.value == v }); j >= 0 {
			bs = append(bs, old[j])
		} else {
			bs = append(bs, ix.join(v, p))
		}
	}
	for _, b := range old {
		if !slices.Contains(bs, b) {
			ix.leave(b, p)
		}
	}
	ix.record(p, bs)
}

// sameValues reports whether bs holds the buckets of vals, in order.
func sameValues(bs []*bucket, vals []string) bool {
	for i, b := range bs {
		if b.value != vals[i] {
			return false
		}
	}
	return true
}

// removeAt removes entry p from the index after the table moved its last
// entry, last, into p (when p != last), and renames that entry p.
func (ix *index) removeAt(p, last int32) {
	ix.unassign(p)
	if p != last {
		if b := ix.of[last]; b != nil {
			b.move(last, p)
			ix.of[p] = b
		} else if bs, ok := ix.multi[last]; ok {
			for _, b := range bs {
				b.move(last, p)
			}
			ix.multi[p] = bs
			delete(ix.multi, last)
		}
	}
	ix.of[last] = nil
	ix.of = ix.of[:last]
	if cap(ix.of) > 64 && len(ix.of) < cap(ix.of)/4 {
		ix.of = slices.Clone(ix.of)
	}
}
