package kube

import (
	"errors"
	"hash/maphash"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Messages shared while decoding.
//
// Beside maps and whole slices (pbdecode_share.go), the decoder of
// read-only objects shares single messages: a nested message (a
// container's probe, its resources, a volume's source) or one element of
// a repeated one (a container, a volume mount) whose bytes are those of
// one decoded before is what that one decoded to, and is not decoded
// again. Objects of one template repeat most of their messages even when
// a few differ (every Pod's service account volume has a name of its own,
// so its containers' volume mounts, its containers and its volumes
// differ as whole slices, while their other messages repeat). A message
// decoded into a pointer field is shared by pointer; one held by value (a
// struct field, a slice element) is copied, its own pointers, slices and
// maps then shared.
//
// A message is decoded from its own bytes only (the slice of its field's
// value: nothing before or after it), and the table compares those bytes
// in full at each lookup, so what it finds is what the message decodes
// to. A message's bytes decide what it decodes to only if it is decoded into
// a zero value: the generated code merges a field that appears twice into
// what the first appearance decoded, and a merge into a shared message
// would write into every object that shares it. The generated Marshal
// never writes a field twice, so when a message field of a message does
// appear twice, the object is decoded again, sharing no message.

// errMergedShared stops a decoding that shares messages when a message
// field appears twice in one message (see decodeObject).
var errMergedShared = errors.New("kube: a merged message field, decoded again without sharing messages")

// decodeObject decodes message b into the zero value of typ at p,
// sharing messages if in.readOnly; a merge makes it decode b again into
// a zero value, sharing none. The interner's lock is held.
func (t *pbType) decodeObject(in *interner, typ reflect.Type, b []byte, p unsafe.Pointer) error {
	in.sharing = in.readOnly
	err := t.decode(in, b, p)
	if err == errMergedShared {
		reflect.NewAt(typ, p).Elem().SetZero()
		in.forgetSharedMaps()
		in.sharing = false
		err = t.decode(in, b, p)
	}
	in.forgetSharedMaps()
	return err
}

// forgetSharedMaps empties the list of maps the object being decoded
// shares, keeping no pointer to them.
func (in *interner) forgetSharedMaps() {
	clear(in.sharedMaps)
	in.sharedMaps = in.sharedMaps[:0]
}

// decodeMessage decodes the message v of a struct field, a pointer field
// or a slice element into q, sharing it when an equal one was decoded
// before. q is a zero struct (a field's first appearance, a new element),
// or a nil pointer.
func (f *pbField) decodeMessage(in *interner, v []byte, q unsafe.Pointer) error {
	if len(v) == 0 || len(v) > pbShareMaxBytes || f.msgs.judge.skip() {
		return f.decodeOwnMessage(in, v, q)
	}
	if found, ok := f.msgs.find(v); ok {
		if f.op == pbPtrMessage {
			*(*unsafe.Pointer)(q) = found.p
		} else {
			f.msg.copy(q, found.p)
		}
		return nil
	}
	decimals := in.decimals
	if err := f.decodeOwnMessage(in, v, q); err != nil {
		return err
	}
	if in.decimals != decimals {
		return nil // a quantity in decimal form, which copies would share
	}
	if !f.msgs.repeated(v) {
		return nil // perhaps unique: kept once seen twice
	}
	var p unsafe.Pointer
	switch f.op {
	case pbPtrMessage:
		p = *(*unsafe.Pointer)(q)
	case pbRepMessage:
		p = q // the element, in an array no other slice will write into
	default:
		p = f.msg.clone(q) // not the field itself, which would keep its whole object
	}
	f.msgs.add(v, pbRun{p: p})
	return nil
}

// decodeOwnMessage decodes the message v into q, sharing none of it but
// what its own fields share.
func (f *pbField) decodeOwnMessage(in *interner, v []byte, q unsafe.Pointer) error {
	if f.op == pbPtrMessage {
		q = f.grow(q)
	}
	return f.msg.decode(in, v, q)
}

// pbSeenSlots is how many hashes of the messages it decoded a field
// remembers.
const pbSeenSlots = 64

// pbSeed seeds the hashes of the messages decoded.
var pbSeed = maphash.MakeSeed()

// repeated reports whether the message b was decoded lately by the
// field: a message is kept for sharing only once it repeats, so that the
// unique ones (those holding a name, an address) cost a hash, not a copy
// of their bytes in the table. A message forgotten, its slot taken by
// another, is kept at its next repetition.
func (r *pbRuns) repeated(b []byte) bool {
	if r.seen == nil {
		r.seen = new([pbSeenSlots]uint64)
	}
	h := maphash.Bytes(pbSeed, b)
	slot := &r.seen[h%pbSeenSlots]
	if *slot == h {
		return true
	}
	*slot = h
	return false
}

// copy copies the message value at src to dst.
func (t *pbType) copy(dst, src unsafe.Pointer) {
	reflect.NewAt(t.typ, dst).Elem().Set(reflect.NewAt(t.typ, src).Elem())
}

// clone returns a new copy of the message value at src.
func (t *pbType) clone(src unsafe.Pointer) unsafe.Pointer {
	p := reflect.New(t.typ).UnsafePointer()
	t.copy(p, src)
	return p
}

// shareMessages gives a table of shared messages to every field of the
// compiled types that holds messages which may be shared between
// read-only objects: those holding only strings, scalars, field sets,
// maps that may be shared (see pbMap.sharesMaps) and messages that may
// be; not bytes, which could be edited in place, nor types decoded by a
// method of their own but times and quantities (those in decimal form
// the decoder tells apart). A time or a quantity is only shared by
// pointer: copying one costs about what decoding it does.
func (c *pbCompiler) shareMessages() {
	unshareable := map[*pbType]bool{}
	for changed := true; changed; {
		changed = false
		for _, pt := range c.types {
			if !unshareable[pt] && !pt.holdsShareable(unshareable) {
				unshareable[pt] = true
				changed = true
			}
		}
	}
	for _, pt := range c.types {
		for i := range pt.fields {
			f := &pt.fields[i]
			switch f.op {
			case pbStruct, pbRepMessage:
				if f.msg.method == nil && !unshareable[f.msg] {
					f.msgs = new(pbRuns)
				}
			case pbPtrMessage:
				if f.msg.method == nil && !unshareable[f.msg] || sharedByMethod(f.msg) {
					f.msgs = new(pbRuns)
				}
			}
		}
	}
}

// holdsShareable reports whether every field of t may be shared, given the
// types known not to be.
func (t *pbType) holdsShareable(unshareable map[*pbType]bool) bool {
	for _, f := range t.fields {
		switch f.op {
		case pbBytes:
			return false
		case pbMapEntry:
			if !f.mp.sharesMaps() {
				return false
			}
		case pbStruct, pbPtrMessage, pbRepMessage:
			if f.msg.method != nil && !sharedByMethod(f.msg) || unshareable[f.msg] {
				return false
			}
		}
	}
	return true
}

// sharedByMethod reports whether t, decoded by a method of its own, is a
// type whose values may be shared: a time or a quantity.
func sharedByMethod(t *pbType) bool {
	switch t.typ {
	case reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime](), reflect.TypeFor[resource.Quantity]():
		return true
	}
	return false
}
