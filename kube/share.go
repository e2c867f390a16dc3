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
// The informer calls Share for the objects of lists and creations after
// its Transform, as the object goes into the cache and becomes read-only,
// so no Transform ever edits a shared map. Code that edited a cached object's map would change every object
// sharing it; editing cached objects is forbidden anyway, and the
// informer's MutationDetector reports it.
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
	equal func(a, b V) bool
	// hash returns the hash of v and its size in bytes, or false if v
	// must not be shared.
	hash func(seed maphash.Seed, v V) (uint64, int, bool)
}

// A mapSite is one map field of a type, judged like a string site: a
// site whose maps are seldom found is cold for a while.
type mapSite[K ~string, V any] struct {
	site
	// recent holds the latest maps shared or added here: most sites see
	// few distinct maps (the containers of one template), and comparing
	// with them spares a hash.
	recent [mapSiteRecent]map[K]V
	next   uint8 // where the next map goes in recent
}

// mapSiteRecent is how many recent maps a site compares with.
const mapSiteRecent = 4

// seen returns the map in recent that equals m.
func (st *mapSite[K, V]) seen(t *mapTable[K, V], m map[K]V) (map[K]V, bool) {
	for _, r := range &st.recent {
		if r != nil && len(r) == len(m) && t.same(r, m) {
			return r, true
		}
	}
	return nil, false
}

// remember puts m in recent, in place of the oldest.
func (st *mapSite[K, V]) remember(m map[K]V) {
	st.recent[st.next%mapSiteRecent] = m
	st.next++
}

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
		st := new(mapSite[string, string])
		return func(p unsafe.Pointer, s *mapSharer) {
			m := (*map[string]string)(p)
			*m = share(&s.strings, s.seed, *m, st)
		}
	case t == resourceListType && quantityFields.ok:
		st := new(mapSite[corev1.ResourceName, resource.Quantity])
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
// the same.
func share[K ~string, V any, M ~map[K]V](t *mapTable[K, V], seed maphash.Seed, m M, st *mapSite[K, V]) M {
	if m == nil || st.skip() {
		return m
	}
	if r, ok := st.seen(t, m); ok {
		st.found(true)
		return r
	}
	h, ok := t.hashMap(seed, m)
	if !ok {
		return m
	}
	for _, c := range t.maps[h] {
		if t.same(c, m) {
			st.found(true)
			st.remember(c)
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
	st.remember(m)
	return m
}

// same reports whether a and b hold equal values under the same keys.
func (t *mapTable[K, V]) same(a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !t.equal(v, w) {
			return false
		}
	}
	return true
}

// hashMap returns a hash of m's contents that does not depend on the
// order of iteration, or false if m must not be shared or holds more than
// shareMaxBytes.
func (t *mapTable[K, V]) hashMap(seed maphash.Seed, m map[K]V) (uint64, bool) {
	sum, size := uint64(len(m)), 0
	for k, v := range m {
		hv, n, ok := t.hash(seed, v)
		if size += len(k) + n; !ok || size > shareMaxBytes {
			return 0, false
		}
		sum += maphash.String(seed, string(k)) ^ bits.RotateLeft64(hv, 31)
	}
	return sum, true
}
