package kube

import (
	"hash/maphash"
	"math/bits"
	"reflect"
	"sync"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A mapSharer makes the objects an informer caches share their maps
// where they are equal: a map equal to one an earlier object held at the
// same place is replaced by that earlier map. It shares maps of strings
// (labels, annotations, node selectors, data) and resource lists (a
// container's requests and limits). Objects of one kind repeat them (the
// Pods of one template have the same ones), and even a small map costs a
// few hundred bytes.
//
// A source shares the objects of ReadOnly lists and watches as it
// delivers them; an informer with a Transform calls Share for the objects
// of lists and creations after the Transform, as the object goes into the
// cache and becomes read-only, so no Transform ever edits a shared map.
// Code that edited a cached object's map would change every object
// sharing it; editing cached objects is forbidden anyway, and the
// informer's MutationDetector reports it.
//
// Invariant: a table holds maps of decoded objects, which hold no memory
// of the input (their decoders copy it out); a hash only selects the
// candidates, and a map is shared only when holds finds every entry of
// the object's map in it, with an equal value, and no other.
type mapSharer struct {
	mu        sync.Mutex
	seed      maphash.Seed
	strings   mapTable[string, string]
	resources mapTable[corev1.ResourceName, resource.Quantity]
	walk      walk[*mapSharer] // nil when the type holds no shared map
}

const (
	// shareMaxBytes bounds the strings of the maps worth looking up:
	// bigger ones are data, rarely repeated, and costly to hash.
	shareMaxBytes = 4 << 10
	// shareMaxMaps bounds each table of maps. When full it starts again
	// empty: objects keep the maps they share.
	shareMaxMaps = 1 << 12
)

// A mapTable holds the maps of one type seen, by the hash of their
// contents. equal and hash compare and hash values exactly: two values
// are equal only if nothing can tell them apart.
type mapTable[K ~string, V any] struct {
	maps  map[uint64][]map[K]V
	count int
	// entries holds the entries of the latest map read, so that it is
	// iterated once and compared by lookups in the maps of the table.
	entries []mapEntry[K, V]
	equal   func(a, b V) bool
	// hash returns the hash of v and its size in bytes, or false if v
	// must not be shared.
	hash func(seed maphash.Seed, v V) (uint64, int, bool)
}

type mapEntry[K ~string, V any] struct {
	k K
	v V
}

// A mapSite is one map field of a type, judged like a string site: a
// site whose maps are seldom found is cold for a while. It keeps no
// recent maps, unlike a string site: comparing two maps costs as much as
// hashing one, so a miss among recent maps would cost more than the hash
// and the table lookup it was meant to spare.
type mapSite = site

var (
	stringMapType    = reflect.TypeFor[map[string]string]()
	resourceListType = reflect.TypeFor[corev1.ResourceList]()
)

func newMapSharer(t reflect.Type) *mapSharer {
	s := &mapSharer{seed: maphash.MakeSeed()}
	s.strings.equal = func(a, b string) bool { return a == b }
	s.strings.hash = func(seed maphash.Seed, v string) (uint64, int, bool) {
		return maphash.String(seed, v), len(v), true
	}
	s.resources.equal = sameQuantity
	s.resources.hash = hashQuantity
	s.walk = compileWalk(t, mapLeaf)
	return s
}

// mapLeaf returns the walk that shares a map of strings or a resource
// list.
func mapLeaf(t reflect.Type) walk[*mapSharer] {
	switch {
	case t == stringMapType:
		st := new(mapSite)
		return func(p unsafe.Pointer, s *mapSharer) {
			m := (*map[string]string)(p)
			*m = share(&s.strings, s.seed, *m, st)
		}
	case t == resourceListType && quantityFields.ok:
		st := new(mapSite)
		return func(p unsafe.Pointer, s *mapSharer) {
			m := (*corev1.ResourceList)(p)
			*m = share(&s.resources, s.seed, *m, st)
		}
	}
	return nil
}

// shareObject replaces the maps of obj, a pointer to the sharer's type,
// by equal maps seen before.
func (s *mapSharer) shareObject(obj unsafe.Pointer) {
	if s.walk == nil || obj == nil {
		return
	}
	s.mu.Lock()
	s.walk(obj, s)
	s.mu.Unlock()
}

// share returns the map of t that equals m, or m itself after adding it.
// A nil map stays nil: an empty map would read the same but not marshal
// the same. A map that cannot be shared (too big, or holding a quantity
// in inf.Dec form) counts as a miss, so that a site of big maps turns
// cold rather than hashing each.
func share[K ~string, V any, M ~map[K]V](t *mapTable[K, V], seed maphash.Seed, m M, st *mapSite) M {
	if m == nil || st.skip() {
		return m
	}
	h, ok := t.read(seed, m)
	if !ok {
		st.found(false)
		return m
	}
	for _, c := range t.maps[h] {
		if t.holds(c) {
			st.found(true)
			return c
		}
	}
	st.found(false)
	if t.count >= shareMaxMaps || t.maps == nil {
		t.maps = make(map[uint64][]map[K]V)
		t.count = 0
	}
	t.maps[h] = append(t.maps[h], m)
	t.count++
	return m
}

// holds reports whether c holds exactly the entries read last: the same
// keys, with equal values.
func (t *mapTable[K, V]) holds(c map[K]V) bool {
	if len(c) != len(t.entries) {
		return false
	}
	for i := range t.entries {
		e := &t.entries[i]
		if v, ok := c[e.k]; !ok || !t.equal(v, e.v) {
			return false
		}
	}
	return true
}

// read reads m's entries into t.entries and returns a hash of its
// contents that does not depend on the order of iteration, or false if m
// must not be shared or holds more than shareMaxBytes.
func (t *mapTable[K, V]) read(seed maphash.Seed, m map[K]V) (uint64, bool) {
	if len(m) > shareMaxBytes+1 { // every key but "" holds a byte or more
		return 0, false
	}
	t.entries = t.entries[:0]
	sum, size := uint64(len(m)), 0
	for k, v := range m {
		hv, n, ok := t.hash(seed, v)
		if size += len(k) + n; !ok || size > shareMaxBytes {
			return 0, false
		}
		sum += maphash.String(seed, string(k)) ^ bits.RotateLeft64(hv, 31)
		t.entries = append(t.entries, mapEntry[K, V]{k, v})
	}
	return sum, true
}
