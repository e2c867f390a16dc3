package kube

import (
	"fmt"
	"reflect"
	"unsafe"
)

// A pbType decodes the protobuf message of one Go type into a value of it
// at an address, merging as the generated Unmarshal does: scalars and
// strings are overwritten, nested messages merged, repeated fields
// appended. Strings are copied out of the input, or shared through the
// interner; nothing returned aliases the input.
type pbType struct {
	typ reflect.Type // the Go type decoded
	// fields holds the message's fields by number; op is pbNone for the
	// numbers the type does not have.
	fields []pbField
	// method, when set, decodes the whole message instead: the type's
	// wire form is its own (a Time, a Quantity).
	method func(in *interner, p unsafe.Pointer, b []byte) error
}

// A pbField is one field of a message and how to decode it.
type pbField struct {
	op     pbOp
	kind   pbKind // of a scalar, a pointer's target or a slice's element
	offset uintptr
	msg    *pbType // of a message, a pointer's or slice's message
	st     *site   // of a string or a field set
	grow   func(p unsafe.Pointer) unsafe.Pointer
	slice  *sliceGrower // of a slice of messages
	runs   *pbRuns      // of a map or slice of messages that may be shared; see decodeShared
	msgs   *pbRuns      // of a message, or a slice's, that may be shared; see decodeMessage
	mp     *pbMap
}

// pbOp is how a field is decoded.
type pbOp uint8

const (
	pbNone       pbOp = iota
	pbString          // string
	pbPtrString       // *string
	pbBytes           // []byte
	pbScalar          // an integer or bool, by kind
	pbPtrScalar       // a pointer to one
	pbRepString       // []string
	pbRepScalar       // a slice of integers or bools, packed or not
	pbStruct          // a struct, merged in place
	pbPtrMessage      // a pointer to a struct, allocated if nil
	pbRepMessage      // a slice of structs, one appended per field
	pbFieldsV1        // a *metav1.FieldsV1, shared by its bytes
	pbMapEntry        // a map, one entry per field
)

// pbKind is a scalar's Go kind.
type pbKind uint8

const (
	pbInt32 pbKind = iota + 1
	pbInt64
	pbUint32
	pbUint64
	pbBool
)

// errProtobuf reports a message the generated Unmarshal would refuse.
var errProtobuf = fmt.Errorf("%w: truncated or invalid protobuf", errMalformed)

// decode merges message b into the value at p. The interner's lock is
// held.
func (t *pbType) decode(in *interner, b []byte, p unsafe.Pointer) error {
	if t.method != nil {
		return t.method(in, p, b)
	}
	var messages uint64 // the message fields seen, by number modulo 64
	for i := 0; i < len(b); {
		start := i
		num, key, next, err := pbKey(b, i)
		if err != nil {
			return err
		}
		i = next
		if int(num) >= len(t.fields) || t.fields[num].op == pbNone {
			n, err := pbSkip(b[start:])
			if err != nil {
				return err
			}
			i = start + n
			continue
		}
		f := &t.fields[num]
		q := unsafe.Add(p, f.offset)
		if in.sharing && (f.op == pbStruct || f.op == pbPtrMessage) {
			bit := uint64(1) << (num & 63)
			if messages&bit != 0 {
				return errMergedShared // perhaps into a shared message
			}
			messages |= bit
		}
		if in.readOnly && f.runs != nil {
			end, done, err := f.decodeShared(in, b, start, key, q)
			if err != nil {
				return err
			}
			if done {
				i = end
				continue
			}
		}
		if i, err = f.decode(in, b, i, key, q); err != nil {
			return err
		}
	}
	return nil
}

// decode decodes the field's value at b[i:], after its key, into the
// field at q, and returns where the value ends.
func (f *pbField) decode(in *interner, b []byte, i int, key uint64, q unsafe.Pointer) (int, error) {
	wire := key & 7
	switch f.op {
	case pbScalar, pbPtrScalar:
		if wire != 0 {
			return 0, errProtobuf
		}
		v, i, err := pbVarint(b, i)
		if err != nil {
			return 0, err
		}
		if f.op == pbPtrScalar {
			q = f.grow(q) // a new value each time, as the generated code does
		}
		setScalar(f.kind, q, v)
		return i, nil
	case pbRepScalar:
		return f.repScalar(b, i, wire, q)
	}
	if wire != 2 {
		return 0, errProtobuf
	}
	v, i, err := pbBytesField(b, i)
	if err != nil {
		return 0, err
	}
	switch f.op {
	case pbString:
		*(*string)(q) = in.bytes(v, f.st)
	case pbPtrString:
		*(*unsafe.Pointer)(q) = unsafe.Pointer(new(in.bytes(v, f.st)))
	case pbBytes:
		s := append((*(*[]byte)(q))[:0], v...)
		if s == nil {
			s = []byte{}
		}
		*(*[]byte)(q) = s
	case pbRepString:
		*(*[]string)(q) = append(*(*[]string)(q), in.bytes(v, f.st))
	case pbStruct:
		if in.sharing && f.msgs != nil {
			err = f.decodeMessage(in, v, q) // its first appearance: q is zero
		} else {
			err = f.msg.decode(in, v, q)
		}
	case pbPtrMessage:
		switch {
		case *(*unsafe.Pointer)(q) != nil:
			err = f.msg.decode(in, v, *(*unsafe.Pointer)(q))
		case in.sharing && f.msgs != nil:
			err = f.decodeMessage(in, v, q)
		default:
			err = f.msg.decode(in, v, f.grow(q))
		}
	case pbRepMessage:
		if (*sliceHeader)(q).cap == 0 {
			// Room for all the elements the message holds, at once.
			n, _ := pbFieldRun(b, i, key)
			f.slice.grow(q, 1+n)
		}
		if in.sharing && f.msgs != nil {
			err = f.decodeMessage(in, v, f.grow(q))
		} else {
			err = f.msg.decode(in, v, f.grow(q))
		}
	case pbFieldsV1:
		err = in.decodeFieldsV1(v, q, f.st)
	case pbMapEntry:
		_, err = f.mp.entry(in, b, i-len(v), i, q) // on at the entry's end, wherever it read to
	}
	return i, err
}

// setScalar stores varint v at q as a kind, truncating as the generated
// code does.
func setScalar(kind pbKind, q unsafe.Pointer, v uint64) {
	switch kind {
	case pbInt32, pbUint32:
		*(*uint32)(q) = uint32(v)
	case pbInt64, pbUint64:
		*(*uint64)(q) = v
	case pbBool:
		*(*bool)(q) = v != 0
	}
}

// repScalar appends one value, or a packed run of them, to a slice of
// scalars.
func (f *pbField) repScalar(b []byte, i int, wire uint64, q unsafe.Pointer) (int, error) {
	switch wire {
	case 0:
		v, i, err := pbVarint(b, i)
		if err != nil {
			return 0, err
		}
		setScalar(f.kind, f.grow(q), v)
		return i, nil
	case 2:
		n, i, err := pbLength(b, i)
		if err != nil {
			return 0, err
		}
		// The generated code reads each value up to the end of the
		// message, not of the run, and goes on from where the last ends.
		for end := i + n; i < end; {
			var v uint64
			if v, i, err = pbVarint(b, i); err != nil {
				return 0, err
			}
			setScalar(f.kind, f.grow(q), v)
		}
		return i, nil
	}
	return 0, errProtobuf
}

// pbKey reads the key of the field at b[i:] and returns the field's
// number, truncated to 32 bits as the generated code does, the key (the
// wire type is key&7) and where the value starts. An end of group and a
// number below 1 are errors.
func pbKey(b []byte, i int) (num int32, key uint64, next int, err error) {
	if key, next, err = pbVarint(b, i); err != nil {
		return 0, 0, 0, err
	}
	if num = int32(key >> 3); key&7 == 4 || num <= 0 {
		return 0, 0, 0, errProtobuf
	}
	return num, key, next, nil
}

// pbVarint reads a varint at b[i:] as the generated code does: at most
// ten bytes, the bits past 64 dropped.
func pbVarint(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, nil
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if i >= len(b) {
			return 0, 0, errProtobuf
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
	return 0, 0, errProtobuf
}

// pbLength reads a length at b[i:] that fits in b after it.
func pbLength(b []byte, i int) (int, int, error) {
	n, i, err := pbVarint(b, i)
	if err != nil {
		return 0, 0, err
	}
	if n > uint64(len(b)-i) {
		return 0, 0, errProtobuf
	}
	return int(n), i, nil
}

// pbBytesField reads a length-delimited value at b[i:].
func pbBytesField(b []byte, i int) ([]byte, int, error) {
	n, i, err := pbLength(b, i)
	if err != nil {
		return nil, 0, err
	}
	return b[i : i+n], i + n, nil
}

// pbFieldRun returns how many length-delimited fields of key follow one
// another from b[i:], and where the run ends: at the first field of
// another key, or at the end of b. The generated Marshal writes a
// repeated field's elements, and a map's entries, one after another.
func pbFieldRun(b []byte, i int, key uint64) (count, end int) {
	for i < len(b) {
		k, next, err := pbVarint(b, i)
		if err != nil || k != key {
			break
		}
		n, at, err := pbLength(b, next)
		if err != nil {
			break
		}
		count++
		i = at + n
	}
	return count, i
}

// pbSkip returns the length of the field at the start of b, as the
// generated code skips an unknown one: groups are skipped to their end.
func pbSkip(b []byte) (int, error) {
	depth := 0
	for i := 0; i < len(b); {
		key, next, err := pbVarint(b, i)
		if err != nil {
			return 0, err
		}
		i = next
		switch key & 7 {
		case 0:
			if _, i, err = pbVarint(b, i); err != nil {
				return 0, err
			}
		case 1:
			i += 8
		case 2:
			n, next, err := pbVarint(b, i)
			if err != nil {
				return 0, err
			}
			if n > uint64(len(b)-next) {
				return 0, errProtobuf
			}
			i = next + int(n)
		case 3:
			depth++
		case 4:
			if depth == 0 {
				return 0, errProtobuf
			}
			depth--
		case 5:
			i += 4
		default:
			return 0, errProtobuf
		}
		if i > len(b) {
			return 0, errProtobuf
		}
		if depth == 0 {
			return i, nil
		}
	}
	return 0, errProtobuf
}
