package kube

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A viewer reads values of known lengths from a stream. A value that
// fits in the stream's buffer is not copied: what read returns is the
// buffer's, valid until the next read from the stream and discarded by
// the viewer's next read or release. A larger value is read into
// *scratch, whose memory is reused.
type viewer struct {
	r *bufio.Reader
	// viewed is the length of the value read last from r's buffer, not
	// yet discarded.
	viewed int
}

// release discards the value read last from the buffer, if any.
func (v *viewer) release() {
	if v.viewed > 0 {
		v.r.Discard(v.viewed) // cannot fail: Peek buffered them
		v.viewed = 0
	}
}

// read reads a value of n bytes, reporting a stream that ends inside it
// as io.ErrUnexpectedEOF.
func (v *viewer) read(n int, scratch *[]byte) ([]byte, error) {
	v.release()
	if n <= v.r.Size() {
		b, err := v.r.Peek(n)
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		v.viewed = n
		return b, nil
	}
	if cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	b := (*scratch)[:n]
	if _, err := io.ReadFull(v.r, b); err != nil {
		return nil, unexpectedEOF(err)
	}
	return b, nil
}

// pbReader reads the fields of a protobuf message from a stream, without
// holding more of it than the field being read. Every method that reads
// releases the value read last first.
type pbReader struct {
	viewer
	// remain is how many bytes of the message are left, or -1 for a
	// message that ends with the stream.
	remain int64
}

// field reads the next field's key. It returns io.EOF at the end of the
// message.
func (p *pbReader) field() (num, wire uint64, err error) {
	p.release()
	if p.remain == 0 {
		return 0, 0, io.EOF
	}
	if p.remain < 0 {
		if _, err := p.r.Peek(1); err == io.EOF {
			return 0, 0, io.EOF
		}
	}
	key, err := p.uvarint()
	return key >> 3, key & 7, err
}

// uvarint reads a varint.
func (p *pbReader) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := p.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, p.malformed()
}

func (p *pbReader) byte() (byte, error) {
	if p.remain == 0 {
		return 0, p.malformed()
	}
	b, err := p.r.ReadByte()
	if err != nil {
		return 0, unexpectedEOF(err)
	}
	if p.remain > 0 {
		p.remain--
	}
	return b, nil
}

// length reads the length of a bytes field's value, which must fit in
// the message and be at most max.
func (p *pbReader) length(max int64) (int64, error) {
	p.release()
	n, err := p.uvarint()
	switch {
	case err != nil:
		return 0, err
	case n > uint64(max) || (p.remain >= 0 && n > uint64(p.remain)):
		return 0, p.malformed()
	}
	return int64(n), nil
}

// value reads a bytes field's value of n bytes and returns it; it stays
// valid until the next read from the stream, by any pbReader (see
// viewer).
func (p *pbReader) value(buf *[]byte, n int64) ([]byte, error) {
	if p.remain > 0 {
		p.remain -= n
	}
	return p.read(int(n), buf)
}

// skip skips a field's value of wire type wire.
func (p *pbReader) skip(wire uint64) error {
	p.release()
	var n int64
	switch wire {
	case 0:
		_, err := p.uvarint()
		return err
	case 1:
		n = 8
	case 5:
		n = 4
	case 2:
		var err error
		if n, err = p.length(1 << 62); err != nil {
			return err
		}
	default:
		return p.malformed()
	}
	if p.remain >= 0 && n > p.remain {
		return p.malformed()
	}
	if _, err := p.r.Discard(int(n)); err != nil {
		return unexpectedEOF(err)
	}
	if p.remain > 0 {
		p.remain -= n
	}
	return nil
}

func (p *pbReader) malformed() error {
	return fmt.Errorf("%w: truncated or invalid protobuf", errMalformed)
}

// unexpectedEOF reports the end of the stream inside a value as
// io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// protobufList decodes a list response as it arrives: each item into its
// own allocation, holding no more of the response than one item.
func (o *objectType[T]) protobufList(r *bufio.Reader) ([]T, metav1.ListMeta, error) {
	var meta metav1.ListMeta
	prefix := make([]byte, len(protobufPrefix))
	if _, err := io.ReadFull(r, prefix); err != nil || !bytes.Equal(prefix, protobufPrefix) {
		return nil, meta, fmt.Errorf("%w: no protobuf prefix", errMalformed)
	}
	unknown := pbReader{viewer: viewer{r: r}, remain: -1}
	var apiVersion, kind string
	var items []T
	var buf []byte
	typed, listed := false, false
	for {
		num, wire, err := unknown.field()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, meta, err
		}
		switch {
		case num == 1 && wire == 2 && !typed:
			n, err := unknown.length(maxFrame)
			var v []byte
			if err == nil {
				v, err = unknown.value(&buf, n)
			}
			if err == nil {
				var av, k []byte
				av, k, err = typeMeta(v)
				apiVersion, kind = string(av), string(k)
			}
			if err != nil {
				return nil, meta, err
			}
			typed = true
		case num == 2 && wire == 2:
			if !typed {
				return nil, meta, fmt.Errorf("%w: a list's contents before its type", errMalformed)
			}
			if kind == "Status" {
				return nil, meta, protobufStatus(&unknown, &buf)
			}
			if err := o.checkKind(apiVersion, kind, o.listKind); err != nil {
				return nil, meta, err
			}
			n, err := unknown.length(1 << 62)
			if err != nil {
				return nil, meta, err
			}
			list := pbReader{viewer: viewer{r: r}, remain: n}
			if items, err = o.protobufItems(&list, &meta, &buf); err != nil {
				return nil, meta, err
			}
			listed = true
		default:
			if err := unknown.skip(wire); err != nil {
				return nil, meta, err
			}
		}
	}
	if err := o.checkKind(apiVersion, kind, o.listKind); err != nil {
		return nil, meta, err
	}
	if !listed { // a response cut short: an empty list still has a message
		return nil, meta, fmt.Errorf("%w: a list response without its list", errMalformed)
	}
	return items, meta, nil
}

// protobufItems decodes the fields of a list message: its ListMeta into
// meta and its items, each decoded from the stream's buffer, or from
// *buf when larger.
func (o *objectType[T]) protobufItems(list *pbReader, meta *metav1.ListMeta, buf *[]byte) ([]T, error) {
	var items []T
	for {
		num, wire, err := list.field()
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return nil, err
		}
		if wire != 2 || (num != 1 && num != 2) {
			if err := list.skip(wire); err != nil {
				return nil, err
			}
			continue
		}
		n, err := list.length(maxFrame)
		var v []byte
		if err == nil {
			v, err = list.value(buf, n)
		}
		if err != nil {
			return nil, err
		}
		if num == 1 {
			if err := meta.Unmarshal(v); err != nil {
				return nil, fmt.Errorf("%w: %v", errMalformed, err)
			}
			continue
		}
		obj := o.new()
		if err := o.unmarshal(v, obj); err != nil {
			return nil, err
		}
		items = append(items, obj)
	}
}

// protobufStatus reads the Status a list response holds in place of the
// list, and returns it as an error.
func protobufStatus(unknown *pbReader, buf *[]byte) error {
	n, err := unknown.length(maxFrame)
	var v []byte
	if err == nil {
		v, err = unknown.value(buf, n)
	}
	if err != nil {
		return err
	}
	var s metav1.Status
	if err := s.Unmarshal(v); err != nil {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	return statusError(&s)
}
