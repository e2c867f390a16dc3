// Package gunzip reads gzip streams (RFC 1952) of DEFLATE data (RFC
// 1951), as compress/gzip does, faster: the API server's compressed list
// and watch responses.
//
// Most of the work is in the loop that decodes Huffman codes. It takes
// input 8 bytes at a time into a 64-bit buffer, so that one refill
// serves a whole literal or match; decodes a code with one lookup in a
// table indexed by its first bits (two for long codes); and copies a
// match 8 bytes at a time into a flat output buffer that keeps the
// window of history in front of what has not been read. Near the end of
// the buffered input it decodes one code at a time, and it never waits
// for more input once it has output to return, so that a stream flushed
// after each watch event yields each event as it arrives.
package gunzip

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

var (
	// ErrHeader is returned for a member whose header is not gzip's.
	ErrHeader = errors.New("gunzip: invalid header")
	// ErrChecksum is returned for a member whose data does not match its
	// checksum or size.
	ErrChecksum = errors.New("gunzip: invalid checksum")
	// ErrCorrupt is returned for DEFLATE data that breaks the format.
	ErrCorrupt = errors.New("gunzip: corrupt DEFLATE data")
)

// A Reader inflates a gzip stream: one or more members, each a header,
// DEFLATE data and a trailer that checks it. A stream cut short is
// io.ErrUnexpectedEOF.
type Reader struct {
	in  input
	out []byte
	// out[r:w] is decoded and not yet read; out[history:w] is what the
	// current member's matches may refer to.
	r, w, history int

	state  blockState
	final  bool // the current block is the member's last
	stored int  // the bytes of a stored block still to copy
	// lit and dist are the codes of the current block: the fixed ones or
	// dynLit and dynDist.
	lit, dist       *table
	dynLit, dynDist table
	lenCode         table
	lens            [286 + 30]uint8
	digest, size    uint32 // of the current member's data so far
	head            []byte // the current member\'s header
	err             error
}

// NewReader returns a Reader of src, having read the first member's
// header. An empty src is io.EOF.
func NewReader(src io.Reader) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(src); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read src as NewReader would, reusing its memory.
func (z *Reader) Reset(src io.Reader) error {
	z.in.reset(src)
	if z.out == nil {
		z.out = make([]byte, outSize)
	}
	z.r, z.w = 0, 0
	z.err = z.member()
	return z.err
}

// Read reads inflated bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for z.r == z.w {
		if z.err != nil {
			return 0, z.err
		}
		if z.state == stateEnd {
			z.err = z.trailer()
			continue
		}
		z.makeRoom()
		w := z.w
		err := z.inflate()
		z.digest = crc32.Update(z.digest, crc32.IEEETable, z.out[w:z.w])
		z.size += uint32(z.w - w)
		z.err = err
	}
	n := copy(p, z.out[z.r:z.w])
	z.r += n
	return n, nil
}

// makeRoom moves the window of history to the front of the output
// buffer once everything after it is read and the buffer is two thirds
// full.
func (z *Reader) makeRoom() {
	if z.w < 2*windowSize {
		return
	}
	shift := z.w - windowSize
	copy(z.out, z.out[shift:z.w])
	z.r -= shift
	z.w -= shift
	z.history = max(0, z.history-shift)
}

// Gzip's header flags.
const (
	flagHeaderCRC = 1 << 1
	flagExtra     = 1 << 2
	flagName      = 1 << 3
	flagComment   = 1 << 4
)

// maxHeaderString bounds a member's name and comment, with their NUL, as
// compress/gzip does.
const maxHeaderString = 512

// member reads a member's header and starts its data. At the end of the
// stream, where a first member may begin or another may follow, it
// returns io.EOF.
func (z *Reader) member() error {
	in := &z.in
	if end, err := in.atEnd(); end || err != nil {
		if err == nil {
			err = io.EOF
		}
		return err
	}
	head := z.head[:0]
	next := func(n int) error { // reads the header's next n bytes into head
		for range n {
			b, err := in.readByte()
			if err != nil {
				return err
			}
			head = append(head, b)
		}
		return nil
	}
	if err := next(10); err != nil {
		return err
	}
	if head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 {
		return ErrHeader
	}
	flags := head[3]
	if flags&flagExtra != 0 {
		if err := next(2); err != nil {
			return err
		}
		if err := next(int(binary.LittleEndian.Uint16(head[len(head)-2:]))); err != nil {
			return err
		}
	}
	for _, flag := range []byte{flagName, flagComment} {
		if flags&flag == 0 {
			continue
		}
		for i := 0; ; i++ {
			if i == maxHeaderString {
				return ErrHeader
			}
			if err := next(1); err != nil {
				return err
			}
			if head[len(head)-1] == 0 {
				break
			}
		}
	}
	if flags&flagHeaderCRC != 0 {
		digest := crc32.ChecksumIEEE(head)
		if err := next(2); err != nil {
			return err
		}
		if binary.LittleEndian.Uint16(head[len(head)-2:]) != uint16(digest) {
			return ErrHeader
		}
	}
	z.head = head
	z.state, z.final, z.history = stateHeader, false, z.w
	z.digest, z.size = 0, 0
	return nil
}

// trailer checks the member's trailer, and starts the next member, if
// any.
func (z *Reader) trailer() error {
	in := &z.in
	in.align()
	var t [8]byte
	for i := range t {
		b, err := in.readByte()
		if err != nil {
			return err
		}
		t[i] = b
	}
	if binary.LittleEndian.Uint32(t[:4]) != z.digest || binary.LittleEndian.Uint32(t[4:]) != z.size {
		return ErrChecksum
	}
	return z.member()
}
