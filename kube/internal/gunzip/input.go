package gunzip

import "io"

// input reads the compressed stream: whole bytes from src into buf, and
// bits from those into bits, least significant first, as DEFLATE packs
// them. Outside the fast loop (see fast), the bits of bits above nbits
// are zero.
type input struct {
	src io.Reader
	buf []byte // buf[pos:] is read from src and not yet taken into bits
	pos int
	// err is what src returned with its last bytes: io.EOF at its end.
	err   error
	bits  uint64
	nbits uint
}

const (
	// inputSize is the size of the input buffer.
	inputSize = 16 << 10
	// maxEmptyReads is how many reads in a row may return nothing, and
	// no error, before src is taken to be broken (as bufio does).
	maxEmptyReads = 100
)

// reset starts reading src.
func (in *input) reset(src io.Reader) {
	if in.buf == nil {
		in.buf = make([]byte, 0, inputSize)
	}
	*in = input{src: src, buf: in.buf[:0]}
}

// buffered reports whether bytes are buffered that bits does not hold.
func (in *input) buffered() bool {
	return in.pos < len(in.buf)
}

// fill reads src into the buffer if it is empty, and reports whether it
// holds bytes. It waits for src.
func (in *input) fill() bool {
	for empty := 0; !in.buffered(); empty++ {
		if in.err != nil {
			return false
		}
		if empty == maxEmptyReads {
			in.err = io.ErrNoProgress
			return false
		}
		n, err := in.src.Read(in.buf[:cap(in.buf)])
		in.buf, in.pos, in.err = in.buf[:n], 0, err
	}
	return true
}

// failure is the error for a stream that ends, or fails, where more of
// it is needed.
func (in *input) failure() error {
	if in.err == nil || in.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return in.err
}

// more takes one more byte into bits, waiting for src if none is
// buffered, and reports whether there was one. nbits must be at most 56.
func (in *input) more() bool {
	if !in.fill() {
		return false
	}
	in.bits |= uint64(in.buf[in.pos]) << in.nbits
	in.pos++
	in.nbits += 8
	return true
}

// takeBuffered takes buffered bytes into bits, as many as fit, without
// waiting for src.
func (in *input) takeBuffered() {
	for in.nbits <= 56 && in.buffered() {
		in.bits |= uint64(in.buf[in.pos]) << in.nbits
		in.pos++
		in.nbits += 8
	}
}

// need makes bits hold at least n bits, n at most 57, waiting for src.
func (in *input) need(n uint) error {
	for in.nbits < n {
		if !in.more() {
			return in.failure()
		}
	}
	return nil
}

// take consumes and returns the next n bits, which bits holds.
func (in *input) take(n uint) uint32 {
	v := uint32(in.bits & (1<<n - 1))
	in.bits >>= n
	in.nbits -= n
	return v
}

// align drops the bits up to the next byte boundary.
func (in *input) align() {
	in.take(in.nbits % 8)
}

// readByte reads the next byte of a byte-aligned stream.
func (in *input) readByte() (byte, error) {
	if err := in.need(8); err != nil {
		return 0, err
	}
	return byte(in.take(8)), nil
}

// atEnd reports whether the stream ends here, waiting for src to tell;
// the stream must be byte-aligned. It returns src's error if it failed.
func (in *input) atEnd() (bool, error) {
	if in.nbits > 0 || in.fill() {
		return false, nil
	}
	if in.err != io.EOF {
		return false, in.err
	}
	return true, nil
}
