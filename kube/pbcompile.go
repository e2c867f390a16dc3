package kube

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	unmarshalerType = reflect.TypeFor[protobufUnmarshaler]()
	fieldsV1Pointer = reflect.TypeFor[*metav1.FieldsV1]()
	bytesMap        = reflect.TypeFor[map[string][]byte]()
	resourceList    = reflect.TypeFor[corev1.ResourceList]()
)

// maxFieldNumber bounds the field numbers of a compiled message, which
// index a slice.
const maxFieldNumber = 1 << 10

// A pbCompiler compiles the decoders of the types an object holds.
type pbCompiler struct {
	types map[reflect.Type]*pbType
}

// compileProtobuf returns the decoder of t, a struct type, or nil when
// t's generated Unmarshal must decode it: t or a type it holds has a form
// the compiler does not know. The decoder is compiled from the fields'
// protobuf tags and Go types, for the Kubernetes API types only (the
// packages under k8s.io/api and k8s.io/apimachinery, whose generated
// code it reproduces); the types whose wire form is their own (Time,
// MicroTime, Quantity, any type with an Unmarshal method and no tagged
// fields) are decoded by their Unmarshal method. Each string field has
// its own interning site, shared wherever its struct type appears.
func compileProtobuf(t reflect.Type) *pbType {
	c := pbCompiler{types: map[reflect.Type]*pbType{}}
	pt, ok := c.message(t)
	if !ok || pt.method != nil {
		return nil
	}
	c.shareMessages()
	return pt
}

func (c *pbCompiler) message(t reflect.Type) (*pbType, bool) {
	if pt, ok := c.types[t]; ok {
		return pt, true // compiled, or being compiled when t is recursive
	}
	if t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil, false
	}
	if method := ownUnmarshal(t); method != nil {
		return &pbType{typ: t, method: method}, true
	}
	pt := &pbType{typ: t}
	c.types[t] = pt
	for f := range t.Fields() {
		tag, ok := f.Tag.Lookup("protobuf")
		if !ok || tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 || !f.IsExported() {
			return nil, false
		}
		num, err := strconv.Atoi(parts[1])
		if err != nil || num <= 0 || num > maxFieldNumber {
			return nil, false
		}
		field, ok := c.field(f.Type)
		if !ok {
			return nil, false
		}
		field.offset = f.Offset
		if num >= len(pt.fields) {
			pt.fields = append(pt.fields, make([]pbField, num+1-len(pt.fields))...)
		}
		if pt.fields[num].op != pbNone {
			return nil, false // two fields of one number
		}
		pt.fields[num] = field
	}
	return pt, true
}

// skippingManagedFields returns a copy of t, the decoder of struct type
// elem, that skips the managedFields of elem's own ObjectMeta (not those
// of the ObjectMetas it holds, as SetManagedFields(nil) clears only its
// own), or t if elem has no ObjectMeta field.
func (t *pbType) skippingManagedFields(elem reflect.Type) *pbType {
	const managedFields = 17 // ObjectMeta's field number
	meta, ok := elem.FieldByName("ObjectMeta")
	if !ok || meta.Type != reflect.TypeFor[metav1.ObjectMeta]() || len(meta.Index) != 1 {
		return t
	}
	c := &pbType{typ: t.typ, fields: slices.Clone(t.fields)}
	for i, f := range c.fields {
		if f.op == pbStruct && f.offset == meta.Offset && len(f.msg.fields) > managedFields {
			m := &pbType{typ: f.msg.typ, fields: slices.Clone(f.msg.fields)}
			m.fields[managedFields] = pbField{}
			c.fields[i].msg = m
		}
	}
	return c
}

// ownUnmarshal returns the decoding of a type whose wire form is not
// described by tagged fields, by its own Unmarshal method, or nil.
func ownUnmarshal(t reflect.Type) func(*interner, unsafe.Pointer, []byte) error {
	switch t {
	case reflect.TypeFor[metav1.Time]():
		return func(_ *interner, p unsafe.Pointer, b []byte) error { return (*metav1.Time)(p).Unmarshal(b) }
	case reflect.TypeFor[metav1.MicroTime]():
		return func(_ *interner, p unsafe.Pointer, b []byte) error { return (*metav1.MicroTime)(p).Unmarshal(b) }
	case reflect.TypeFor[resource.Quantity]():
		return func(in *interner, p unsafe.Pointer, b []byte) error { return in.quantity(b, (*resource.Quantity)(p)) }
	}
	if kubeAPIPackage(t.PkgPath()) && tagged(t) {
		return nil
	}
	return func(_ *interner, p unsafe.Pointer, b []byte) error {
		return reflect.NewAt(t, p).Interface().(protobufUnmarshaler).Unmarshal(b)
	}
}

// kubeAPIPackage reports whether path is a package of the Kubernetes API
// types, whose Unmarshal methods are generated from their tags.
func kubeAPIPackage(path string) bool {
	return strings.HasPrefix(path, "k8s.io/api/") || strings.HasPrefix(path, "k8s.io/apimachinery/")
}

// tagged reports whether t has a field with a protobuf tag.
func tagged(t reflect.Type) bool {
	for f := range t.Fields() {
		if tag, ok := f.Tag.Lookup("protobuf"); ok && tag != "-" {
			return true
		}
	}
	return false
}

// field compiles a field of type t. Its wire type follows from its Go
// type, as in the generated code (a few tags name another).
func (c *pbCompiler) field(t reflect.Type) (pbField, bool) {
	if kind, ok := scalarKind(t); ok {
		return pbField{op: pbScalar, kind: kind}, true
	}
	switch t.Kind() {
	case reflect.String:
		return pbField{op: pbString, st: new(site)}, true
	case reflect.Struct:
		msg, ok := c.message(t)
		return pbField{op: pbStruct, msg: msg}, ok
	case reflect.Pointer:
		return c.pointer(t)
	case reflect.Slice:
		return c.slice(t)
	case reflect.Map:
		return c.mapField(t)
	}
	return pbField{}, false
}

func (c *pbCompiler) pointer(t reflect.Type) (pbField, bool) {
	e := t.Elem()
	if t == fieldsV1Pointer {
		return pbField{op: pbFieldsV1, st: new(site)}, true
	}
	if kind, ok := scalarKind(e); ok {
		return pbField{op: pbPtrScalar, kind: kind, grow: allocator(e)}, true
	}
	switch e.Kind() {
	case reflect.String:
		return pbField{op: pbPtrString, st: new(site)}, true
	case reflect.Struct:
		msg, ok := c.message(e)
		return pbField{op: pbPtrMessage, msg: msg, grow: allocator(e)}, ok
	}
	return pbField{}, false
}

func (c *pbCompiler) slice(t reflect.Type) (pbField, bool) {
	e := t.Elem()
	if kind, ok := scalarKind(e); ok {
		return pbField{op: pbRepScalar, kind: kind, grow: appender(newSliceGrower(t))}, true
	}
	switch e.Kind() {
	case reflect.Uint8:
		return pbField{op: pbBytes}, true
	case reflect.String:
		return pbField{op: pbRepString, st: new(site)}, true
	case reflect.Struct:
		msg, ok := c.message(e)
		g := newSliceGrower(t)
		return pbField{op: pbRepMessage, msg: msg, grow: appender(g), slice: g, runs: new(pbRuns)}, ok
	}
	return pbField{}, false
}

func (c *pbCompiler) mapField(t reflect.Type) (pbField, bool) {
	if t.Key().Kind() != reflect.String {
		return pbField{}, false
	}
	m := &pbMap{typ: t, key: new(site)}
	switch t {
	case stringMapType:
		m.fast = pbMapStrings
	case bytesMap:
		m.fast = pbMapBytes
	case resourceList:
		m.fast = pbMapResources
	}
	v := t.Elem()
	switch {
	case v.Kind() == reflect.String:
		m.val, m.vst = pbString, new(site)
	case v.Kind() == reflect.Slice && v.Elem().Kind() == reflect.Uint8:
		m.val = pbBytes
	case v.Kind() == reflect.Struct:
		var ok bool
		if m.msg, ok = c.message(v); !ok {
			return pbField{}, false
		}
		m.val = pbStruct
	default:
		return pbField{}, false
	}
	f := pbField{op: pbMapEntry, mp: m}
	if m.sharesMaps() {
		f.runs = new(pbRuns)
	}
	return f, true
}

// scalarKind returns the kind of a type decoded from a varint.
func scalarKind(t reflect.Type) (pbKind, bool) {
	switch t.Kind() {
	case reflect.Int32:
		return pbInt32, true
	case reflect.Int64:
		return pbInt64, true
	case reflect.Uint32:
		return pbUint32, true
	case reflect.Uint64:
		return pbUint64, true
	case reflect.Bool:
		return pbBool, true
	}
	return 0, false
}

// allocator returns a function that points the pointer at q to a new
// zero value of t, and returns it.
func allocator(t reflect.Type) func(q unsafe.Pointer) unsafe.Pointer {
	return func(q unsafe.Pointer) unsafe.Pointer {
		p := reflect.New(t).UnsafePointer()
		*(*unsafe.Pointer)(q) = p
		return p
	}
}

// appender returns a function that appends an element to the slice of
// type t at q, and returns it. The element is zero: the slices it grows
// are only ever grown by it, so their memory past their length is zero.
func appender(g *sliceGrower) func(q unsafe.Pointer) unsafe.Pointer {
	size := g.scratch.Type().Elem().Size()
	return func(q unsafe.Pointer) unsafe.Pointer {
		h := (*sliceHeader)(q)
		if h.len == h.cap {
			g.grow(q, 1)
		}
		p := unsafe.Add(h.data, uintptr(h.len)*size)
		h.len++
		return p
	}
}

// A sliceGrower grows slices of one type in place. reflect grows a slice
// only through a Value, and making a Value of a slice at an address
// costs a lookup of its pointer type each time; a grower makes one
// Value, of a slice of its own, once, and moves the slice to grow in and
// out of it. The decoder it belongs to is used under the interner's lock,
// one decoding at a time.
type sliceGrower struct {
	scratch reflect.Value  // a settable slice, nil between calls
	at      unsafe.Pointer // its address
}

func newSliceGrower(t reflect.Type) *sliceGrower {
	p := reflect.New(t)
	return &sliceGrower{scratch: p.Elem(), at: p.UnsafePointer()}
}

// grow grows the capacity of the slice at q for n more elements.
func (g *sliceGrower) grow(q unsafe.Pointer, n int) {
	s := (*sliceHeader)(g.at)
	*s = *(*sliceHeader)(q)
	g.scratch.Grow(n)
	*(*sliceHeader)(q) = *s
	*s = sliceHeader{}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
