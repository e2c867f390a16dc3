package kube

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// The Kubernetes protobuf encoding: a message is the prefix "k8s\x00"
// followed by a runtime.Unknown, whose field 1 holds the type (apiVersion
// 1, kind 2) and field 2 the object's own message. A list's message holds
// its ListMeta in field 1 and one item per field 2. A watch stream is a
// sequence of frames, each a 4-byte big-endian length and a
// metav1.WatchEvent (type 1, and in field 2 a runtime.RawExtension whose
// field 1 is the object, prefixed and wrapped as above).
var protobufPrefix = []byte("k8s\x00")

// maxFrame is the largest watch frame read, as in client-go, and the
// largest item of a protobuf list.
const maxFrame = 16 << 20

// pbMessage iterates over the fields of a protobuf message.
type pbMessage struct {
	b   []byte
	err error
}

// next returns the next field: its number, wire type, and for the bytes
// wire type (2) its contents. It reports false at the end or on malformed
// input (then err is set).
func (m *pbMessage) next() (num uint64, wire uint64, val []byte, ok bool) {
	if len(m.b) == 0 || m.err != nil {
		return 0, 0, nil, false
	}
	key, n := binary.Uvarint(m.b)
	if n <= 0 {
		return m.fail()
	}
	m.b = m.b[n:]
	num, wire = key>>3, key&7
	switch wire {
	case 0: // varint
		_, n = binary.Uvarint(m.b)
		if n <= 0 {
			return m.fail()
		}
		m.b = m.b[n:]
	case 1: // fixed64
		if len(m.b) < 8 {
			return m.fail()
		}
		m.b = m.b[8:]
	case 5: // fixed32
		if len(m.b) < 4 {
			return m.fail()
		}
		m.b = m.b[4:]
	case 2: // bytes
		l, n := binary.Uvarint(m.b)
		if n <= 0 || l > uint64(len(m.b)-n) {
			return m.fail()
		}
		val, m.b = m.b[n:n+int(l)], m.b[n+int(l):]
	default:
		return m.fail()
	}
	return num, wire, val, true
}

func (m *pbMessage) fail() (uint64, uint64, []byte, bool) {
	m.err = fmt.Errorf("%w: truncated or invalid protobuf", errMalformed)
	return 0, 0, nil, false
}

// unwrap returns the type and message of a prefixed runtime.Unknown, all
// three within data.
func unwrap(data []byte) (apiVersion, kind, raw []byte, err error) {
	if !bytes.HasPrefix(data, protobufPrefix) {
		return nil, nil, nil, fmt.Errorf("%w: no protobuf prefix", errMalformed)
	}
	m := pbMessage{b: data[len(protobufPrefix):]}
	for num, wire, val, ok := m.next(); ok; num, wire, val, ok = m.next() {
		switch {
		case num == 1 && wire == 2:
			if apiVersion, kind, err = typeMeta(val); err != nil {
				return nil, nil, nil, err
			}
		case num == 2 && wire == 2:
			raw = val
		}
	}
	return apiVersion, kind, raw, m.err
}

// typeMeta decodes a runtime.TypeMeta message, returning its fields
// within data.
func typeMeta(data []byte) (apiVersion, kind []byte, err error) {
	t := pbMessage{b: data}
	for num, wire, val, ok := t.next(); ok; num, wire, val, ok = t.next() {
		switch {
		case num == 1 && wire == 2:
			apiVersion = val
		case num == 2 && wire == 2:
			kind = val
		}
	}
	return apiVersion, kind, t.err
}

// decodeProtobuf decodes a prefixed object of the source's kind.
func (o *objectType[T]) decodeProtobuf(data []byte) (T, error) {
	var zero T
	apiVersion, kind, raw, err := unwrap(data)
	if err != nil {
		return zero, err
	}
	if string(kind) != o.gvk.Kind || string(apiVersion) != o.apiVersion {
		return zero, o.checkKind(string(apiVersion), string(kind), o.gvk.Kind)
	}
	obj := o.new()
	if err := o.unmarshal(raw, obj); err != nil {
		return zero, err
	}
	return obj, nil
}

// protobufStream reads the events of a protobuf watch stream.
type protobufStream[T Object] struct {
	o *objectType[T]
	viewer
	frame []byte // a frame larger than the stream's buffer, reused: decoding copies what it keeps
}

func newProtobufStream[T Object](o *objectType[T], r *bufio.Reader) *protobufStream[T] {
	return &protobufStream[T]{o: o, viewer: viewer{r: r}}
}

// next reads and decodes the next event. It returns io.EOF at the end of
// the stream, and the reader's error if it fails.
func (s *protobufStream[T]) next() (decodedEvent[T], error) {
	var ev decodedEvent[T]
	s.release() // the last frame
	var size [4]byte
	if _, err := io.ReadFull(s.r, size[:]); err != nil {
		return ev, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxFrame {
		return ev, fmt.Errorf("%w: a watch frame of %d bytes", errMalformed, n)
	}
	frame, err := s.read(int(n), &s.frame)
	if err != nil {
		return ev, err
	}
	var object []byte
	m := pbMessage{b: frame}
	for num, wire, val, ok := m.next(); ok; num, wire, val, ok = m.next() {
		switch {
		case num == 1 && wire == 2:
			ev.Type = eventType(val)
		case num == 2 && wire == 2:
			ext := pbMessage{b: val}
			for num, wire, val, ok := ext.next(); ok; num, wire, val, ok = ext.next() {
				if num == 1 && wire == 2 {
					object = val
				}
			}
			if ext.err != nil {
				return ev, ext.err
			}
		}
	}
	if m.err != nil {
		return ev, m.err
	}
	if ev.Type == watch.Error {
		_, kind, raw, err := unwrap(object)
		if err != nil {
			return ev, err
		}
		if string(kind) != "Status" {
			return ev, fmt.Errorf("%w: an error event with a %s", errMalformed, kind)
		}
		ev.Status = &metav1.Status{}
		if err := ev.Status.Unmarshal(raw); err != nil {
			return ev, fmt.Errorf("%w: %v", errMalformed, err)
		}
		return ev, nil
	}
	obj, err := s.o.decodeProtobuf(object)
	ev.Object = obj
	return ev, err
}

// eventType returns the watch event type named t, without allocating for
// the known types.
func eventType(t []byte) watch.EventType {
	switch watch.EventType(t) {
	case watch.Added:
		return watch.Added
	case watch.Modified:
		return watch.Modified
	case watch.Deleted:
		return watch.Deleted
	case watch.Bookmark:
		return watch.Bookmark
	case watch.Error:
		return watch.Error
	}
	return watch.EventType(t)
}
