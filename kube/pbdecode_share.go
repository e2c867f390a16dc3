package kube

import (
	"maps"
	"slices"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// Maps and slices shared while decoding.
//
// When the caller of List or Watch promises not to modify the objects
// (reflector.ListOptions.ReadOnly: an informer without a Transform), the
// protobuf decoder makes equal maps of strings and resource lists one
// map, and equal slices of messages (a Pod's containers, volumes,
// tolerations, owner references) one array. The generated Marshal writes
// a map's entries, or a repeated field's elements, one after another (a
// map's sorted by key), so the bytes of that run identify what it decodes
// to: a run seen before is not decoded again, and the object gets what
// it decoded to. A map costs a few hundred bytes even when small (a
// resource list of two quantities, about 750), a container a few
// kilobytes, and building them costs far more than finding the run, one
// hash of its bytes. An update that leaves a Pod's spec alone (a status
// change) finds its containers.
//
// Invariant: a table holds a run only if its decoding read no byte
// outside it, so that its bytes, compared in full at each lookup, are all
// that decided what it decoded to. A message (an element) is decoded from
// its own bytes only, but a map entry's key or value is read up to the
// end of the enclosing message (see pbMap.entry): an entry that runs past
// the run's end decodes to bytes of whatever follows, and such a run is
// never kept. Whether a run reads past its end depends on its own bytes
// alone, so a run found in the table does not either. The generated
// Marshal never writes such an entry; only a corrupted or hand-made
// message holds one. The table's keys are copies, and what a run decoded
// to holds copies or shared strings, never the input's memory (see
// pbType), so a buffer reused or changed after decoding changes nothing.

// pbShareMaxBytes bounds the runs worth looking up: bigger ones are
// data, rarely repeated, and costly to hash.
const pbShareMaxBytes = 16 << 10

// pbShareMaxRuns and pbShareTableBytes bound a field's table. When full it
// starts again empty: the objects keep what they share.
const (
	pbShareMaxRuns    = 1 << 10
	pbShareTableBytes = 1 << 20
)

// pbRuns is the sharing state of one field: what each run of its entries
// or elements, or each of its messages (see decodeMessage), seen before
// decoded to, by the run's or message's bytes.
type pbRuns struct {
	// judge decides when the field's runs are worth looking up: a field
	// whose runs seldom repeat (a ConfigMap's data, managedFields, whose
	// times change) skips its lookups for a while.
	judge site
	runs  map[string]pbRun
	bytes int // of runs' keys
	// seen holds hashes of messages decoded lately, for a field of
	// messages (see repeated).
	seen *[pbSeenSlots]uint64
}

// pbRun is what a run decoded to: a map, or a slice's array and length.
type pbRun struct {
	p unsafe.Pointer
	n int
}

// find returns what run decoded to before, counting the lookup in the
// judgement.
func (r *pbRuns) find(run []byte) (pbRun, bool) {
	found, ok := r.runs[unsafe.String(&run[0], len(run))]
	r.judge.found(ok)
	return found, ok
}

// add records what run decoded to.
func (r *pbRuns) add(run []byte, v pbRun) {
	if r.runs == nil || len(r.runs) >= pbShareMaxRuns || r.bytes+len(run) > pbShareTableBytes {
		r.runs, r.bytes = make(map[string]pbRun), 0
	}
	r.runs[string(run)] = v
	r.bytes += len(run)
}

// runAt returns the run of fields of key that starts at b[start:], if it
// is worth looking up.
func (r *pbRuns) runAt(b []byte, start int, key uint64) ([]byte, bool) {
	if r.judge.skip() {
		return nil, false
	}
	_, end := pbFieldRun(b, start, key)
	if end == start || end-start > pbShareMaxBytes {
		return nil, false
	}
	return b[start:end], true
}

// sharesMaps reports whether maps of m's type may be shared: maps of
// strings always, resource lists when quantities can be inspected (a
// resource list holding a decimal quantity is not shared: copies of that
// quantity share the decimal, which some of Quantity's methods change in
// place), never maps of bytes or messages, whose values could be edited
// in place through any object holding them.
func (m *pbMap) sharesMaps() bool {
	return m.fast == pbMapStrings || m.fast == pbMapResources && quantityFields.ok
}

// decodeShared decodes the run of the field's entries (a map's) or
// elements (a repeated message's) that starts with the one at b[start:],
// whose key is key, into the empty map or slice at q, sharing what it
// decodes to with earlier objects, and returns where the run ends. It
// returns false, having read nothing, when the field must be decoded one
// entry or element at a time: q already holds some (an earlier run of the
// field is merged into), or the run is not worth looking up. A shared
// slice's capacity is its length, so that appending to it, as a later
// run of the field would, copies the array; a shared map is copied
// before a later run adds to it (see own).
func (f *pbField) decodeShared(in *interner, b []byte, start int, key uint64, q unsafe.Pointer) (int, bool, error) {
	if !f.empty(q) {
		return 0, false, nil
	}
	run, ok := f.runs.runAt(b, start, key)
	if !ok {
		return 0, false, nil
	}
	end := start + len(run)
	if found, ok := f.runs.find(run); ok {
		f.setShared(in, q, found)
		return end, true, nil
	}
	decimals, reach := in.decimals, end
	for i := start; i < end; {
		_, k, next, err := pbKey(b, i)
		if err != nil {
			return 0, false, err
		}
		read := 0
		if f.op == pbMapEntry {
			i, read, err = f.mp.entryAt(in, b, next, k, q)
		} else {
			i, err = f.decode(in, b, next, k, q)
			read = i // a message is read from its own bytes only
		}
		if err != nil {
			return 0, false, err
		}
		reach = max(reach, read)
	}
	var decoded pbRun
	if f.op == pbMapEntry {
		decoded.p = *(*unsafe.Pointer)(q)
	} else {
		h := (*sliceHeader)(q)
		decoded = pbRun{p: h.data, n: h.len}
	}
	if in.decimals == decimals && reach == end {
		f.runs.add(run, decoded)
	}
	f.setShared(in, q, decoded)
	return end, true, nil
}

// empty reports whether the map or slice at q is nil or empty.
func (f *pbField) empty(q unsafe.Pointer) bool {
	if f.op == pbMapEntry {
		return *(*unsafe.Pointer)(q) == nil // a map is a pointer
	}
	return (*sliceHeader)(q).len == 0
}

// setShared points the map or slice at q to r, which other objects may
// share: a later run of the field must not add to it in place.
func (f *pbField) setShared(in *interner, q unsafe.Pointer, r pbRun) {
	if f.op == pbMapEntry {
		*(*unsafe.Pointer)(q) = r.p
		in.sharedMaps = append(in.sharedMaps, r.p)
		return
	}
	*(*sliceHeader)(q) = sliceHeader{data: r.p, len: r.n, cap: r.n}
}

// own makes the map at q the object's own before an entry is added to
// it, if it is a shared one: a message may hold a map's entries in more
// than one run, and the generated code merges them.
func (m *pbMap) own(in *interner, q unsafe.Pointer) {
	if mp := *(*unsafe.Pointer)(q); mp == nil || !slices.Contains(in.sharedMaps, mp) {
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
