package kube

import (
	"hash/maphash"
	"maps"
	"math/bits"
	"reflect"
	"sync"
	"unsafe"
)

// A mapSharer makes the objects an informer caches share their maps of
// strings (labels, annotations, node selectors, data) where they are
// equal: a map equal to one an earlier object held at the same place is
// replaced by that earlier map. Objects of one kind repeat their labels
// and annotations (the Pods of one template have the same ones), and even
// a small map costs a few hundred bytes.
//
// The informer calls Share after its Transform, as the object goes into
// the cache and becomes read-only, so no Transform ever edits a shared
// map. Code that edited a cached object's map would change every object
// sharing it; editing cached objects is forbidden anyway, and the
// informer's MutationDetector reports it.
type mapSharer struct {
	mu   sync.Mutex
	seed maphash.Seed
	// maps holds the maps seen, by the hash of their contents.
	maps  map[uint64][]map[string]string
	count int
	walk  walk[*mapSharer] // nil when the type holds no map of strings
}

const (
	// shareMaxBytes bounds the contents of the maps worth looking up:
	// bigger ones are data, rarely repeated, and costly to hash.
	shareMaxBytes = 4 << 10
	// shareMaxMaps bounds the table of maps. When full it starts again
	// empty: objects keep the maps they share.
	shareMaxMaps = 1 << 12
)

// A mapSite is one map field of a type, judged like a string site: a
// site whose maps are seldom found is cold for a while.
type mapSite struct {
	site
	last map[string]string // the latest map shared or added here
}

var stringMapType = reflect.TypeFor[map[string]string]()

func newMapSharer(t reflect.Type) *mapSharer {
	return &mapSharer{
		seed: maphash.MakeSeed(),
		maps: make(map[uint64][]map[string]string),
		walk: compileWalk(t, mapLeaf),
	}
}

// mapLeaf returns the walk that shares a map[string]string.
func mapLeaf(t reflect.Type) walk[*mapSharer] {
	if t != stringMapType {
		return nil
	}
	st := new(mapSite)
	return func(p unsafe.Pointer, s *mapSharer) {
		m := (*map[string]string)(p)
		*m = s.share(*m, st)
	}
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

// share returns the map seen before that equals m, or m itself. A nil map
// stays nil: an empty map would read the same but not marshal the same.
func (s *mapSharer) share(m map[string]string, st *mapSite) map[string]string {
	if m == nil || st.skip() {
		return m
	}
	if st.last != nil && maps.Equal(st.last, m) {
		st.found(true)
		return st.last
	}
	h, ok := s.hash(m)
	if !ok {
		return m
	}
	for _, c := range s.maps[h] {
		if maps.Equal(c, m) {
			st.found(true)
			st.last = c
			return c
		}
	}
	st.found(false)
	if s.count >= shareMaxMaps {
		clear(s.maps)
		s.count = 0
	}
	s.maps[h] = append(s.maps[h], m)
	s.count++
	st.last = m
	return m
}

// hash returns a hash of m's contents that does not depend on the order
// of iteration, or false if m holds more than shareMaxBytes.
func (s *mapSharer) hash(m map[string]string) (uint64, bool) {
	sum, size := uint64(len(m)), 0
	for k, v := range m {
		if size += len(k) + len(v); size > shareMaxBytes {
			return 0, false
		}
		sum += maphash.String(s.seed, k) ^ bits.RotateLeft64(maphash.String(s.seed, v), 31)
	}
	return sum, true
}
