package indexer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
)

// IndexFunc computes the values under which obj is found in one index. An
// object may have any number of values, including none. It must be
// deterministic: the Indexer calls it again on the stored object when the
// object is deleted, or updated with different values, instead of
// remembering the values.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers maps index names to the functions that compute them.
type Indexers[T any] map[string]IndexFunc[T]

// NamespaceIndex is the conventional name of the index built by
// NamespaceIndexFunc. Lister.Namespace uses it when it is present.
const NamespaceIndex = "namespace"

// NamespaceIndexFunc indexes an object by its namespace.
func NamespaceIndexFunc[T Object](obj T) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}

var (
	// ErrUnknownIndex is returned, wrapped with the name, when a method is
	// asked for an index the Indexer does not have.
	ErrUnknownIndex = errors.New("indexer: unknown index")
	// ErrIndexExists is returned, wrapped with the name, by AddIndexers for
	// an index name that is already in use.
	ErrIndexExists = errors.New("indexer: index already exists")
)

// indexSet is an immutable, ordered set of index functions. Index i of the
// set is stored in Indexer.indices[i]; AddIndexers appends, so a position
// never changes meaning.
type indexSet[T any] struct {
	names  []string
	funcs  []IndexFunc[T]
	byName map[string]int
}

// with returns a set holding s's indexes followed by add's, in name order so
// that the layout does not depend on map iteration.
func (s *indexSet[T]) with(add Indexers[T]) *indexSet[T] {
	n := &indexSet[T]{
		names:  slices.Clone(s.names),
		funcs:  slices.Clone(s.funcs),
		byName: maps.Clone(s.byName),
	}
	if n.byName == nil {
		n.byName = make(map[string]int, len(add))
	}
	for _, name := range slices.Sorted(maps.Keys(add)) {
		n.byName[name] = len(n.names)
		n.names = append(n.names, name)
		n.funcs = append(n.funcs, add[name])
	}
	return n
}

// lookup returns the position of the named index.
func (s *indexSet[T]) lookup(name string) (int, error) {
	i, ok := s.byName[name]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownIndex, name)
	}
	return i, nil
}

// values computes obj's values in every index from position from onwards,
// appending them to dst. It runs user code and must not be called under the
// lock.
func (s *indexSet[T]) values(dst [][]string, from int, key string, obj T) ([][]string, error) {
	for i := from; i < len(s.funcs); i++ {
		v, err := s.funcs[i](obj)
		if err != nil {
			return dst, fmt.Errorf("indexer: index %q of %q: %w", s.names[i], key, err)
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// valuesSum returns a 64-bit hash of an object's values in every index, as
// indexSet.values returns them. Each index's value count and each value's
// length are hashed before the values, so two different lists of value
// lists never feed the hash the same bytes: they get the same sum only by
// a collision of maphash under the Indexer's random seed, which has
// probability 2^-64 per comparison.
func valuesSum(seed maphash.Seed, vals [][]string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	for _, vs := range vals {
		binary.LittleEndian.PutUint64(n[:], uint64(len(vs)))
		h.Write(n[:])
		for _, v := range vs {
			binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.WriteString(v)
		}
	}
	return h.Sum64()
}

// index maps each value of one index to the set of keys with that value.
// Empty sets are deleted, so the index never holds more than its objects
// need.
type index map[string]map[string]struct{}

func (ix index) add(value, key string) {
	keys := ix[value]
	if keys == nil {
		keys = make(map[string]struct{}, 1)
		ix[value] = keys
	}
	keys[key] = struct{}{}
}

func (ix index) remove(value, key string) {
	keys := ix[value]
	if keys == nil {
		return
	}
	delete(keys, key)
	if len(keys) == 0 {
		delete(ix, value)
	}
}

// smallDiff is the largest product of old and new value counts for which
// update compares values pairwise instead of replacing them all.
const smallDiff = 64

// update moves key from the old values to the new ones, touching only the
// values that differ.
func (ix index) update(key string, old, new []string) {
	if slices.Equal(old, new) {
		return
	}
	if len(old)*len(new) > smallDiff {
		for _, v := range old {
			ix.remove(v, key)
		}
		for _, v := range new {
			ix.add(v, key)
		}
		return
	}
	for _, v := range old {
		if !slices.Contains(new, v) {
			ix.remove(v, key)
		}
	}
	for _, v := range new {
		if !slices.Contains(old, v) {
			ix.add(v, key)
		}
	}
}
