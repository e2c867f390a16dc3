package kube

import (
	"maps"
	"slices"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// Maps shared while decoding.
//
// When the caller of List or Watch promises not to modify the objects
// (reflector.ListOptions.ReadOnly: an informer without a Transform), the
// protobuf decoder makes equal maps of strings and resource lists one
// map. The generated Marshal writes a map's entries one after another,
// sorted by key, so the bytes of that run of entries identify the map:
// a run seen before is not decoded again, and the object gets the map it
// decoded to. A map costs a few hundred bytes even when small (a resource
// list of two quantities, about 750), and building it costs an insertion
// per entry; finding the run costs one hash of its bytes.

// pbShareMaxBytes bounds the runs of entries worth looking up: bigger
// maps are data, rarely repeated, and costly to hash.
const pbShareMaxBytes = 4 << 10

// pbShareMaxMaps bounds a map field's table. When full it starts again
// empty: the objects keep the maps they share.
const pbShareMaxMaps = 1 << 10

// pbMapShare is the sharing state of one map field.
type pbMapShare struct {
	// judge decides when the field's maps are worth looking up: a field
	// whose maps seldom repeat (a ConfigMap's data) skips its lookups for
	// a while.
	judge site
	// maps holds the maps decoded from each run of entries, by the run's
	// bytes.
	maps map[string]unsafe.Pointer
}

// shares reports whether the field's maps may be shared: maps of strings
// always, resource lists when quantities can be inspected (see entry's
// check), never maps of bytes or messages, whose values could be edited
// in place through any object holding them.
func (m *pbMap) shares() bool {
	return m.fast == pbMapStrings || m.fast == pbMapResources && quantityFields.ok
}

// decodeShared decodes the run of m's entries starting with the field at
// b[start:] (its key is key) into the map at q, sharing it with earlier
// objects, and returns where the run ends. It returns false, having read
// nothing, when the map must be decoded entry by entry: q already holds a
// map (an earlier run of the same field is merged into), the run is too
// big, or the field's maps seldom repeat.
func (m *pbMap) decodeShared(in *interner, b []byte, start int, key uint64, q unsafe.Pointer) (int, bool, error) {
	mp := (*unsafe.Pointer)(q) // a map is a pointer
	if *mp != nil || m.share.judge.skip() {
		return 0, false, nil
	}
	end := pbRunEnd(b, start, key)
	if end == start || end-start > pbShareMaxBytes {
		return 0, false, nil
	}
	run := b[start:end]
	if found, ok := m.share.maps[unsafe.String(&run[0], len(run))]; ok {
		m.share.judge.found(true)
		*mp = found
		in.sharedMaps = append(in.sharedMaps, found)
		return end, true, nil
	}
	m.share.judge.found(false)
	for i := start; i < end; {
		_, _, next, err := pbKey(b, i)
		if err != nil {
			return 0, false, err
		}
		n, at, err := pbLength(b, next)
		if err != nil {
			return 0, false, err
		}
		if i, err = m.entry(in, b, at, at+n, q); err != nil {
			return 0, false, err
		}
	}
	if m.shareable(q) {
		if m.share.maps == nil || len(m.share.maps) >= pbShareMaxMaps {
			m.share.maps = make(map[string]unsafe.Pointer)
		}
		m.share.maps[string(run)] = *mp
		in.sharedMaps = append(in.sharedMaps, *mp)
	}
	return end, true, nil
}

// shareable reports whether the map just decoded at q may be shared: a
// resource list only if every quantity is held in an integer, since
// copies of a quantity held in a decimal share the decimal, which some of
// Quantity's methods change in place.
func (m *pbMap) shareable(q unsafe.Pointer) bool {
	if m.fast != pbMapResources {
		return true
	}
	for _, v := range *(*corev1.ResourceList)(q) {
		if _, _, dec, _, _ := quantityAt(unsafe.Pointer(&v)); dec != nil {
			return false
		}
	}
	return true
}

// own makes the map at q the object's own before an entry is added to
// it, if it is a shared one: a message may hold a map's entries in more
// than one run, and the generated code merges them.
func (m *pbMap) own(in *interner, q unsafe.Pointer) {
	mp := (*unsafe.Pointer)(q)
	if len(in.sharedMaps) == 0 || *mp == nil || !slices.Contains(in.sharedMaps, *mp) {
		return
	}
	switch m.fast {
	case pbMapStrings:
		s := (*map[string]string)(q)
		*s = maps.Clone(*s)
	case pbMapResources:
		r := (*corev1.ResourceList)(q)
		*r = maps.Clone(*r)
	}
}

// pbRunEnd returns where the run of fields of key that starts at b[i:]
// ends: at the first field of another key, or at the end of b. The fields
// are length-delimited.
func pbRunEnd(b []byte, i int, key uint64) int {
	for i < len(b) {
		k, next, err := pbVarint(b, i)
		if err != nil || k != key {
			return i
		}
		n, at, err := pbLength(b, next)
		if err != nil {
			return i
		}
		i = at + n
	}
	return i
}
