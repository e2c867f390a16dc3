package kube

import (
	"reflect"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An interner makes the objects a source decodes share one copy of each
// string that repeats across them (namespaces, field managers, owner
// references, images, container specs) and of each managedFields field
// set. Objects of one kind repeat most of their strings, and a cache holds
// every object for the informer's lifetime, so sharing them is where a
// cached object's memory falls.
//
// It only rewrites objects it has just decoded, before anyone else sees
// them. Strings are immutable, so sharing one is invisible.
//
// Invariant: the table, the sites' recent strings and the field sets hold
// only memory of their own: copies of the bytes decoded (string(b),
// SetRawBytes), or strings of objects already decoded, which their
// decoders copied out of the input. The input is only ever compared with
// them, through a view (unsafe.String) that nothing keeps; a string or
// field set is returned only when it equals those bytes in full. A field set
// (a *FieldsV1 and its bytes) is shared whole: objects from the cache are
// never modified, and a Transform that edits managedFields replaces them
// rather than writing into their bytes.
type interner struct {
	mu    sync.Mutex
	table map[string]string
	// fields holds the first FieldsV1 seen of each field set, keyed by
	// its bytes, so that equal managedFields entries share it whole.
	fields map[string]*metav1.FieldsV1
	// quantities holds the Quantities the protobuf decoder parsed, keyed
	// by their message.
	quantities map[string]resource.Quantity
	walk       walk[*interner] // nil when the type holds no string
	// readOnly says that the object being decoded will not be modified:
	// the decoder may share its maps (see pbField.decodeShared), and
	// sharedMaps lists the ones it shared so far.
	readOnly   bool
	sharedMaps []unsafe.Pointer
	// sharing says that the decoder also shares messages: the object
	// being decoded is read-only, and no message field of it has been
	// merged (see decodeObject).
	sharing bool
	// decimals counts the quantities decoded in decimal form (see
	// pbRuns).
	decimals int
}

const (
	// internMaxLen bounds the strings worth looking up: longer ones are
	// data (certificates, scripts), rarely repeated.
	internMaxLen = 4 << 10
	// internMaxEntries bounds the table. When full it starts again empty:
	// objects keep the strings they share, and new objects share with
	// each other, so memory stays bounded while the strings in use change.
	internMaxEntries = 1 << 16
)

// A site is one string field of a type. It is judged on windows of
// lookups: a site whose strings are seldom found in the table (names,
// UIDs, resource versions, data) is cold: it skips its strings for a
// while, without looking them up or adding them, then is judged again.
type site struct {
	lookups, hits uint32
	coldFor       uint32 // strings still to skip
	// recent holds shared copies of strings the site saw, each in the
	// slot its length and a few of its bytes pick: most sites see few
	// distinct strings (a map's keys, a container's variables), and one
	// comparison with the string in that slot spares a lookup.
	recent [siteRecent]string
	// lastFields is the latest field set of a site of field sets.
	lastFields *metav1.FieldsV1
}

// siteRecent is how many strings a site keeps.
const (
	siteBits   = 5
	siteRecent = 1 << siteBits
)

// siteSlot picks the slot of s, a non-empty string, in recent from its
// length and its first, middle and last bytes, which tell apart the
// values a site repeats (label values, names that differ in a digit).
func siteSlot(s string) int {
	h := uint32(len(s))<<24 ^ uint32(s[0])<<16 ^ uint32(s[len(s)/2])<<8 ^ uint32(s[len(s)-1])
	return int((h * 0x9e3779b1) >> (32 - siteBits))
}

// seen returns the copy of s, a non-empty string, in recent.
func (s *site) seen(str string) (string, bool) {
	r := s.recent[siteSlot(str)]
	return r, r == str
}

// remember puts s, a non-empty string, in recent, in place of the one in
// its slot.
func (s *site) remember(str string) {
	s.recent[siteSlot(str)] = str
}

const (
	// siteWindow is how many lookups a site is judged on.
	siteWindow = 64
	// siteColdFor is how many strings a cold site skips.
	siteColdFor = 64 * siteWindow
)

// skip reports whether the site is cold, counting one string skipped.
func (s *site) skip() bool {
	if s.coldFor == 0 {
		return false
	}
	s.coldFor--
	return true
}

// found records one lookup.
func (s *site) found(hit bool) {
	s.lookups++
	if hit {
		s.hits++
	}
	if s.lookups == siteWindow {
		if s.hits < siteWindow/8 {
			s.coldFor = siteColdFor
		}
		s.lookups, s.hits = 0, 0
	}
}

func newInterner(t reflect.Type) *interner {
	return &interner{
		table:      make(map[string]string),
		fields:     make(map[string]*metav1.FieldsV1),
		quantities: make(map[string]resource.Quantity),
		walk:       compileWalk(t, internLeaf),
	}
}

// intern rewrites the strings of obj, a pointer to the interner's type.
// in.mu must be held.
func (in *interner) intern(obj unsafe.Pointer) {
	if in.walk != nil {
		in.walk(obj, in)
	}
}

// str returns the shared copy of s, adding s when its site allows.
func (in *interner) str(s string, st *site) string {
	if len(s) == 0 || len(s) > internMaxLen || st.skip() {
		return s
	}
	if c, ok := in.shared(s, st); ok {
		return c
	}
	in.add(s)
	st.remember(s)
	return s
}

// shared returns the copy of s that the site remembers or the table
// holds, counting the lookup in the site's judgement. s may be a view of
// the input: it is compared (Go's string equality, every byte) and looked
// up, never kept.
func (in *interner) shared(s string, st *site) (string, bool) {
	if c, ok := st.seen(s); ok {
		st.found(true)
		return c, true
	}
	c, ok := in.table[s]
	st.found(ok)
	if ok {
		st.remember(c)
	}
	return c, ok
}

// fieldSet returns the FieldsV1 equal to f seen before, or f itself.
func (in *interner) fieldSet(f *metav1.FieldsV1, st *site) *metav1.FieldsV1 {
	return in.sharedFields(f.GetRawBytes(), st, func() *metav1.FieldsV1 { return f })
}

// sharedFields returns the FieldsV1 of the field set raw seen before,
// when its site allows, found without copying raw; otherwise the one
// made by own, which must not share raw's memory if raw is not its own
// (raw is f's own bytes for fieldSet, unless built with fieldsv1string;
// the decoder's input for fieldsV1). An own FieldsV1 is added to the
// table, keyed by its bytes.
func (in *interner) sharedFields(raw []byte, st *site, own func() *metav1.FieldsV1) *metav1.FieldsV1 {
	if len(raw) == 0 || len(raw) > internMaxLen || st.skip() {
		return own()
	}
	if st.lastFields != nil && string(raw) == string(st.lastFields.GetRawBytes()) {
		st.found(true)
		return st.lastFields
	}
	c, ok := in.fields[string(raw)]
	st.found(ok)
	if !ok {
		// The key is the kept FieldsV1's own bytes, which no one writes:
		// a field set is all a FieldsV1 holds, so equal keys are equal
		// values, and decodeFieldsV1 replaces a shared one, never merges
		// into it.
		if len(in.fields) >= internMaxEntries {
			clear(in.fields)
		}
		c = own()
		kept := c.GetRawBytes()
		in.fields[unsafe.String(&kept[0], len(kept))] = c
	}
	st.lastFields = c
	return c
}

func (in *interner) add(s string) {
	if len(in.table) >= internMaxEntries {
		clear(in.table)
	}
	in.table[s] = s
}

var fieldsV1Type = reflect.TypeFor[*metav1.FieldsV1]()

// internLeaf returns the walk that interns a value of type t: each string
// field has its own site, and a *FieldsV1 is shared whole. Maps are left
// alone: a Transform may edit them in place (whole maps are shared later,
// after it: see mapSharer), and rewriting their keys costs more than it
// saves.
func internLeaf(t reflect.Type) walk[*interner] {
	switch {
	case t == fieldsV1Type:
		st := new(site)
		return func(p unsafe.Pointer, in *interner) {
			f := (**metav1.FieldsV1)(p)
			*f = in.fieldSet(*f, st)
		}
	case t.Kind() == reflect.String:
		st := new(site)
		return func(p unsafe.Pointer, in *interner) {
			s := (*string)(p)
			*s = in.str(*s, st)
		}
	}
	return nil
}
