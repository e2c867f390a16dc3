package kube

import (
	"reflect"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pbMap decodes the entries of a map field whose keys are strings and
// whose values are strings, bytes or messages. Its strings are shared
// between objects; the map itself only when the objects are read-only
// (see pbField.decodeShared), since a Transform may edit it in place.
type pbMap struct {
	typ  reflect.Type
	fast pbMapFast
	val  pbOp    // pbString, pbBytes or pbStruct
	msg  *pbType // of message values
	key  *site
	vst  *site // of string values
}

// pbMapFast names the map types decoded without reflect.
type pbMapFast uint8

const (
	pbMapReflect   pbMapFast = iota
	pbMapStrings             // map[string]string
	pbMapBytes               // map[string][]byte
	pbMapResources           // corev1.ResourceList
)

// entryAt decodes the map entry whose value starts at b[i:], after its
// key, into the map at q, and returns where the entry ends and where its
// decoding stopped reading (see entry).
func (m *pbMap) entryAt(in *interner, b []byte, i int, key uint64, q unsafe.Pointer) (post, reach int, err error) {
	if key&7 != 2 {
		return 0, 0, errProtobuf
	}
	v, post, err := pbBytesField(b, i)
	if err != nil {
		return 0, 0, err
	}
	reach, err = m.entry(in, b, post-len(v), post, q)
	return post, reach, err
}

// entry decodes the map entry at b[i:post] into the map at q and returns
// where its decoding stopped reading: post, or past it when the entry's
// last field runs past the entry's end. As in the generated code, the
// entry's fields are told apart by number alone, a key's or value's bytes
// are read up to the end of the enclosing message, not of the entry (so
// that what an entry decodes to may depend on the bytes after it), and a
// missing key or value is its zero value (bytes: empty, not nil).
func (m *pbMap) entry(in *interner, b []byte, i, post int, q unsafe.Pointer) (reach int, err error) {
	var key string
	var str string
	bs := []byte{}
	var msg reflect.Value
	var qty resource.Quantity
	for i < post {
		start := i
		k, next, err := pbVarint(b, i)
		if err != nil {
			return 0, err
		}
		i = next
		switch int32(k >> 3) {
		case 1:
			var v []byte
			if v, i, err = pbBytesField(b, i); err != nil {
				return 0, err
			}
			key = in.bytes(v, m.key)
		case 2:
			var v []byte
			if v, i, err = pbBytesField(b, i); err != nil {
				return 0, err
			}
			switch {
			case m.val == pbString:
				str = in.bytes(v, m.vst)
			case m.val == pbBytes:
				bs = make([]byte, len(v))
				copy(bs, v)
			case m.fast == pbMapResources:
				qty = resource.Quantity{}
				err = in.quantity(v, &qty)
			default:
				msg = reflect.New(m.typ.Elem())
				err = m.msg.decode(in, v, msg.UnsafePointer())
			}
			if err != nil {
				return 0, err
			}
		default:
			n, err := pbSkip(b[start:])
			if err != nil {
				return 0, err
			}
			if n > post-start {
				return 0, errProtobuf
			}
			i = start + n
		}
	}
	if len(in.sharedMaps) > 0 {
		m.own(in, q)
	}
	switch m.fast {
	case pbMapStrings:
		mp := (*map[string]string)(q)
		if *mp == nil {
			*mp = make(map[string]string)
		}
		(*mp)[key] = str
	case pbMapBytes:
		mp := (*map[string][]byte)(q)
		if *mp == nil {
			*mp = make(map[string][]byte)
		}
		(*mp)[key] = bs
	case pbMapResources:
		mp := (*corev1.ResourceList)(q)
		if *mp == nil {
			*mp = make(corev1.ResourceList)
		}
		(*mp)[corev1.ResourceName(key)] = qty
	default:
		m.set(q, key, str, bs, msg)
	}
	return i, nil
}

// set stores an entry in a map of any other type.
func (m *pbMap) set(q unsafe.Pointer, key, str string, bs []byte, msg reflect.Value) {
	mv := reflect.NewAt(m.typ, q).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(m.typ))
	}
	vt := m.typ.Elem()
	var v reflect.Value
	switch {
	case m.val == pbString:
		v = reflect.ValueOf(str).Convert(vt)
	case m.val == pbBytes:
		v = reflect.ValueOf(bs).Convert(vt)
	case msg.IsValid():
		v = msg.Elem()
	default:
		v = reflect.Zero(vt)
	}
	mv.SetMapIndex(reflect.ValueOf(key).Convert(m.typ.Key()), v)
}

// bytes returns b as a string: the shared copy when its site allows one,
// found without allocating, or a new copy.
func (in *interner) bytes(b []byte, st *site) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMaxLen || st.skip() {
		return string(b)
	}
	if c, ok := in.shared(unsafe.String(&b[0], len(b)), st); ok { // only compared and looked up
		return c
	}
	c := string(b)
	in.add(c)
	st.remember(c)
	return c
}

// decodeFieldsV1 decodes a FieldsV1 message into the *FieldsV1 at q,
// sharing the field set of an equal one seen before. A message without
// its bytes leaves a set one as it is (the generated code merges), and
// never writes into a shared one.
func (in *interner) decodeFieldsV1(b []byte, q unsafe.Pointer, st *site) error {
	var raw []byte
	found := false
	for i := 0; i < len(b); {
		start := i
		num, key, next, err := pbKey(b, i)
		if err != nil {
			return err
		}
		i = next
		switch {
		case num == 1:
			if key&7 != 2 {
				return errProtobuf
			}
			if raw, i, err = pbBytesField(b, i); err != nil {
				return err
			}
			found = true
		default:
			n, err := pbSkip(b[start:])
			if err != nil {
				return err
			}
			i = start + n
		}
	}
	f := (**metav1.FieldsV1)(q)
	switch {
	case found:
		*f = in.fieldsV1(raw, st)
	case *f == nil:
		*f = &metav1.FieldsV1{}
	}
	return nil
}

// fieldsV1 returns a FieldsV1 of raw: the one seen before when its site
// allows, found without copying raw, or a new one with a copy of raw.
func (in *interner) fieldsV1(raw []byte, st *site) *metav1.FieldsV1 {
	return in.sharedFields(raw, st, func() *metav1.FieldsV1 {
		f := new(metav1.FieldsV1)
		f.SetRawBytes(raw)
		return f
	})
}

// quantity decodes a Quantity message into q, as its Unmarshal does,
// parsing each distinct quantity once: a message of only its string
// field is looked up in the quantities parsed before. Only quantities
// held in an integer are kept, since copies of one held in a decimal
// would share it; none are if Quantity's layout is not the known one.
//
// The key is the whole message, copied when kept, so it holds every byte
// the parse read; a kept Quantity holds an integer and a copy of its
// string, nothing of the input.
func (in *interner) quantity(b []byte, q *resource.Quantity) error {
	// 0x0a is the key of field 1, the string, of wire type 2.
	cacheable := len(b) > 1 && len(b) <= 64 && b[0] == 0x0a && int(b[1]) == len(b)-2
	if cacheable {
		if c, ok := in.quantities[string(b)]; ok {
			*q = c
			return nil
		}
	}
	if err := q.Unmarshal(b); err != nil {
		return err
	}
	if !quantityFields.ok {
		in.decimals++ // a decimal, for all the decoder can tell
		return nil
	}
	if _, _, dec, _, _ := quantityAt(unsafe.Pointer(q)); dec != nil {
		in.decimals++
		return nil
	}
	if cacheable {
		in.keepQuantity(b, *q)
	}
	return nil
}

// keepQuantity keeps q, held in an integer, as the quantity parsed from
// key.
func (in *interner) keepQuantity(key []byte, q resource.Quantity) {
	if len(in.quantities) >= internMaxEntries {
		clear(in.quantities)
	}
	in.quantities[string(key)] = q
}
