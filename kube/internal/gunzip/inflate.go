package gunzip

import "encoding/binary"

// Where the decoder is in the DEFLATE stream of a member.
type blockState uint8

const (
	stateHeader  blockState = iota // before a block's header
	stateHuffman                   // in a block of Huffman codes
	stateStored                    // in a stored block
	stateEnd                       // after the member's last block
)

const (
	windowSize = 1 << 15 // how far back a match may reach
	maxMatch   = 258
	// outSlack is what the copy of a match may write past its end.
	outSlack = 8
	// outSize is the output buffer: a window of history, and room for
	// what is decoded before it is read.
	outSize = 3 * windowSize
)

// inflate decodes into z.out until it has no room left, the member's
// last block ends, or going on would wait for input with some output
// decoded already: within a block, when the buffered input ends; between
// blocks, always, as the next block may have arrived in part. A stream
// flushed after each event is then read up to its last event, not
// beyond.
func (z *Reader) inflate() error {
	start := z.w
	for {
		switch z.state {
		case stateHeader:
			if z.final {
				z.state = stateEnd
				return nil
			}
			if z.w > start { // the next block may not have arrived whole
				return nil
			}
			if err := z.blockHeader(); err != nil {
				return err
			}
		case stateStored:
			done, err := z.storedBytes(start)
			if err != nil || !done {
				return err
			}
			z.state = stateHeader
		case stateHuffman:
			done, err := z.codes(start)
			if err != nil || !done {
				return err
			}
			z.state = stateHeader
		case stateEnd:
			return nil
		}
	}
}

// limit is how far the output may go before a symbol is decoded: a
// match and its slack fit after it.
func (z *Reader) limit() int {
	return len(z.out) - maxMatch - outSlack
}

// blockHeader reads a block's header, and the code lengths of a dynamic
// block, waiting for input as needed.
func (z *Reader) blockHeader() error {
	in := &z.in
	if err := in.need(3); err != nil {
		return err
	}
	z.final = in.take(1) == 1
	switch in.take(2) {
	case 0:
		in.align()
		if err := in.need(32); err != nil {
			return err
		}
		n, inverse := in.take(16), in.take(16)
		if n != ^inverse&0xffff {
			return ErrCorrupt
		}
		z.stored = int(n)
		z.state = stateStored
	case 1:
		z.lit, z.dist = &fixedLit, &fixedDist
		z.state = stateHuffman
	case 2:
		if err := z.dynamicCodes(); err != nil {
			return err
		}
		z.lit, z.dist = &z.dynLit, &z.dynDist
		z.state = stateHuffman
	default:
		return ErrCorrupt
	}
	return nil
}

// lenOrder is the order in which a dynamic block lists the lengths of
// the code length code.
var lenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicCodes reads the codes of a dynamic block into z.dynLit and
// z.dynDist.
func (z *Reader) dynamicCodes() error {
	in := &z.in
	if err := in.need(14); err != nil {
		return err
	}
	nlit := int(in.take(5)) + 257
	ndist := int(in.take(5)) + 1
	nlen := int(in.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		return ErrCorrupt
	}
	var lenLens [19]uint8
	for _, s := range lenOrder[:nlen] {
		if err := in.need(3); err != nil {
			return err
		}
		lenLens[s] = uint8(in.take(3))
	}
	if !z.lenCode.build(lenLens[:], lenSyms[:], lenPrimary) {
		return ErrCorrupt
	}
	lens := z.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		e, err := z.symbol(&z.lenCode)
		if err != nil {
			return err
		}
		s := e.value()
		if s < 16 {
			lens[i] = uint8(s)
			i++
			continue
		}
		var repeat uint32
		var length uint8
		var extra uint
		switch s {
		case 16:
			if i == 0 {
				return ErrCorrupt
			}
			repeat, extra, length = 3, 2, lens[i-1]
		case 17:
			repeat, extra = 3, 3
		default:
			repeat, extra = 11, 7
		}
		if err := in.need(extra); err != nil {
			return err
		}
		repeat += in.take(extra)
		if i+int(repeat) > len(lens) {
			return ErrCorrupt
		}
		for range repeat {
			lens[i] = length
			i++
		}
	}
	if lens[256] == 0 { // a block must be able to end
		return ErrCorrupt
	}
	if !z.dynLit.build(lens[:nlit], litSyms[:], litPrimary) ||
		!z.dynDist.build(lens[nlit:], distSyms[:], distPrimary) {
		return ErrCorrupt
	}
	return nil
}

// symbol reads the next code of t, waiting for input as needed.
func (z *Reader) symbol(t *table) (entry, error) {
	in := &z.in
	for {
		e := t.lookup(in.bits)
		switch {
		case e.kind() != kindInvalid && e.len() <= in.nbits:
			in.take(e.len())
			return e, nil
		case in.nbits >= maxCodeLen:
			return 0, ErrCorrupt
		case !in.more():
			return 0, in.failure()
		}
	}
}

// storedBytes copies a stored block's bytes to the output, and reports
// whether they are all copied.
func (z *Reader) storedBytes(start int) (bool, error) {
	in := &z.in
	for z.stored > 0 {
		room := len(z.out) - z.w
		if room == 0 {
			return false, nil
		}
		if in.nbits >= 8 { // bits the header read ahead
			z.out[z.w] = byte(in.take(8))
			z.w++
			z.stored--
			continue
		}
		if !in.buffered() {
			if z.w > start {
				return false, nil
			}
			if !in.fill() {
				return false, in.failure()
			}
		}
		n := copy(z.out[z.w:z.w+min(room, z.stored)], in.buf[in.pos:])
		in.pos += n
		z.w += n
		z.stored -= n
	}
	return true, nil
}

// codes decodes the codes of a Huffman block into the output, and
// reports whether the block ended.
func (z *Reader) codes(start int) (bool, error) {
	for {
		if z.w > z.limit() {
			return false, nil
		}
		if z.in.pos+8 <= len(z.in.buf) {
			if err := z.fast(); err != nil || z.state != stateHuffman {
				return true, err
			}
			continue
		}
		z.in.takeBuffered()
		ok, err := z.slow()
		switch {
		case err != nil:
			return false, err
		case z.state != stateHuffman:
			return true, nil
		case ok:
			continue
		case z.w > start:
			return false, nil
		case !z.in.more():
			return false, z.in.failure()
		}
	}
}

// fast decodes codes while at least 8 input bytes are buffered and the
// output has room, refilling bits 8 bytes at a time. Each refill leaves at
// least 56 bits, enough for the longest literal or match: a length code
// and its extra bits (20), a distance code and its extra bits (28). It
// sets z.state when the block ends.
//
// The refill loads 8 bytes and counts only the whole bytes that fit, so
// bits above nbits hold the start of the next bytes rather than zeros:
// the next refill ORs in the same bytes at the same places. They are
// cleared on return.
func (z *Reader) fast() error {
	in := &z.in
	buf, pos, b, nb := in.buf, in.pos, in.bits, in.nbits
	out, w, limit := z.out, z.w, z.limit()
	lit, litAll := (*[1 << litPrimary]entry)(z.lit.t), z.lit.t
	dist, distAll := (*[1 << distPrimary]entry)(z.dist.t), z.dist.t
	var err error
	for pos+8 <= len(buf) && w <= limit {
		b |= binary.LittleEndian.Uint64(buf[pos:]) << nb
		pos += int(63-nb) >> 3
		nb |= 56
		e := lit[b&(1<<litPrimary-1)]
		if e.kind() == kindSub {
			e = litAll[e.value()+uint32(b>>litPrimary)&(1<<e.extra()-1)]
		}
		if e.kind() == kindLiteral {
			// Up to three literals per refill: each takes at most 15
			// of the 56 bits.
			for range 3 {
				b >>= e.len()
				nb -= e.len()
				out[w] = byte(e.value())
				w++
				e = lit[b&(1<<litPrimary-1)]
				if e.kind() == kindSub {
					e = litAll[e.value()+uint32(b>>litPrimary)&(1<<e.extra()-1)]
				}
				if e.kind() != kindLiteral {
					break
				}
			}
			continue // the next code is decoded after a refill
		}
		b >>= e.len()
		nb -= e.len()
		if e.kind() != kindMatch {
			if e.kind() == kindEnd {
				z.state = stateHeader
			} else {
				err = ErrCorrupt
			}
			break
		}
		length := int(e.value()) + int(b&(1<<e.extra()-1))
		b >>= e.extra()
		nb -= e.extra()
		d := dist[b&(1<<distPrimary-1)]
		if d.kind() == kindSub {
			d = distAll[d.value()+uint32(b>>distPrimary)&(1<<d.extra()-1)]
		}
		if d.kind() != kindMatch {
			err = ErrCorrupt
			break
		}
		b >>= d.len()
		nb -= d.len()
		distance := int(d.value()) + int(b&(1<<d.extra()-1))
		b >>= d.extra()
		nb -= d.extra()
		if distance > w-z.history {
			err = ErrCorrupt
			break
		}
		if distance >= 8 && length <= 16 { // most matches: two 8-byte copies
			from := w - distance
			binary.LittleEndian.PutUint64(out[w:], binary.LittleEndian.Uint64(out[from:]))
			binary.LittleEndian.PutUint64(out[w+8:], binary.LittleEndian.Uint64(out[from+8:]))
		} else {
			copyMatch(out, w, distance, length)
		}
		w += length
	}
	in.pos, in.bits, in.nbits = pos, b&(1<<nb-1), nb
	z.w = w
	return err
}

// slow decodes one code from the bits held, and reports false, consuming
// nothing, if they do not hold all of it. It sets z.state when the block
// ends.
func (z *Reader) slow() (bool, error) {
	in := &z.in
	b, nb := in.bits, in.nbits
	e := z.lit.lookup(b)
	if e.kind() == kindInvalid || e.len() > nb {
		if nb >= maxCodeLen {
			return false, ErrCorrupt
		}
		return false, nil
	}
	used := e.len()
	switch e.kind() {
	case kindLiteral:
		in.take(used)
		z.out[z.w] = byte(e.value())
		z.w++
		return true, nil
	case kindEnd:
		in.take(used)
		z.state = stateHeader
		return true, nil
	}
	if used+e.extra() > nb {
		return false, nil
	}
	length := int(e.value()) + int(b>>used&(1<<e.extra()-1))
	used += e.extra()
	d := z.dist.lookup(b >> used)
	if d.kind() != kindMatch || used+d.len() > nb {
		if nb-used >= maxCodeLen {
			return false, ErrCorrupt
		}
		return false, nil
	}
	used += d.len()
	if used+d.extra() > nb {
		return false, nil
	}
	distance := int(d.value()) + int(b>>used&(1<<d.extra()-1))
	used += d.extra()
	if distance > z.w-z.history {
		return false, ErrCorrupt
	}
	in.take(used)
	copyMatch(z.out, z.w, distance, length)
	z.w += length
	return true, nil
}

// copyMatch copies length bytes from distance back in out to out[w:].
// Where the distance is 1 or at least 8 it copies 8 bytes at a time,
// each copy reading only bytes already written, and may write up to 7
// bytes past the match.
func copyMatch(out []byte, w, distance, length int) {
	from := w - distance
	switch {
	case distance >= length && length > 32:
		copy(out[w:w+length], out[from:])
	case distance >= 8:
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(out[w+i:], binary.LittleEndian.Uint64(out[from+i:]))
		}
	case distance == 1: // a run of one byte
		run := uint64(out[from]) * 0x0101010101010101
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(out[w+i:], run)
		}
	default:
		for i := range length {
			out[w+i] = out[from+i]
		}
	}
}
