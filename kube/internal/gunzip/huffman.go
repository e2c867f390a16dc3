package gunzip

import (
	"math/bits"
	"slices"
)

// An entry is what a table gives for the code its index begins with:
//
//	bits  0-3   the code's length, which a lookup consumes
//	bits  4-7   how many extra bits follow the code (a match), or the
//	            size in bits of the subtable (kindSub)
//	bits  8-10  the kind
//	bits 16-31  the literal byte, the base of a match length or distance,
//	            or the subtable's offset in the table
type entry uint32

const (
	kindInvalid entry = iota << 8 // zero, so that a cleared table is invalid
	kindLiteral
	kindMatch
	kindEnd
	kindSub
	kindMask entry = 7 << 8
)

func (e entry) len() uint     { return uint(e & 15) }
func (e entry) extra() uint   { return uint(e>>4) & 15 }
func (e entry) kind() entry   { return e & kindMask }
func (e entry) value() uint32 { return uint32(e >> 16) }
func makeEntry(kind entry, extra, value uint32) entry {
	return kind | entry(extra)<<4 | entry(value)<<16
}

// maxCodeLen is the longest code DEFLATE allows.
const maxCodeLen = 15

// A table decodes one Huffman code: t[:1<<primary] is indexed by the next
// primary bits of the stream; codes longer than that continue in
// subtables further in t, indexed by the bits after those.
type table struct {
	t       []entry
	primary uint
	// codes, subBits and subs are scratch space for build.
	codes   [maxSymbols]uint16
	subBits [1 << litPrimary]uint8
	subs    []uint16 // the prefixes with subtables
}

const (
	maxSymbols  = 288
	litPrimary  = 10
	distPrimary = 8
	lenPrimary  = 7 // code length codes are at most 7 bits long
)

// lookup returns the entry for the code at the start of b.
func (t *table) lookup(b uint64) entry {
	e := t.t[b&(1<<t.primary-1)]
	if e.kind() == kindSub {
		e = t.t[e.value()+uint32(b>>t.primary)&(1<<e.extra()-1)]
	}
	return e
}

// build makes t decode the canonical Huffman code whose code lengths are
// lens (0 for a symbol without a code), each symbol decoding to its entry
// in syms. It reports false for lengths that are no prefix code: codes
// that oversubscribe or leave bit sequences without a symbol, except for
// a single code of one bit, which zlib writes and accepts. Lengths that
// are all 0 give a table in which every lookup is invalid.
func (t *table) build(lens []uint8, syms []entry, primary uint) bool {
	t.primary = primary
	size := 1 << primary
	t.t = append(t.t[:0], make([]entry, size)...)
	var count [maxCodeLen + 1]uint32
	maxLen := uint(0)
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, uint(l))
	}
	if maxLen == 0 {
		return true
	}
	count[0] = 0
	var next [maxCodeLen + 1]uint32
	code := uint32(0)
	for l := uint(1); l <= maxLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	if full := code + count[maxLen]; full != 1<<maxLen && (full != 1 || maxLen != 1) {
		return false
	}
	// Codes, bit-reversed as they arrive, and the subtables they need.
	t.subs = t.subs[:0]
	for s, l := range lens {
		if l == 0 {
			continue
		}
		rc := uint16(bits.Reverse16(uint16(next[l])) >> (16 - l))
		next[l]++
		t.codes[s] = rc
		if uint(l) > primary {
			p := rc & uint16(size-1)
			if !slices.Contains(t.subs, p) {
				t.subs = append(t.subs, p)
				t.subBits[p] = 0
			}
			t.subBits[p] = max(t.subBits[p], l-uint8(primary))
		}
	}
	for _, p := range t.subs {
		sb := t.subBits[p]
		t.t[p] = makeEntry(kindSub, uint32(sb), uint32(len(t.t)))
		t.t = append(t.t, make([]entry, 1<<sb)...)
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		e := syms[s] | entry(l)
		rc := uint32(t.codes[s])
		if uint(l) <= primary {
			for i := rc; i < uint32(size); i += 1 << l {
				t.t[i] = e
			}
			continue
		}
		sub := t.t[rc&uint32(size-1)]
		step := uint32(1) << (uint(l) - primary)
		for i := rc >> primary; i < 1<<sub.extra(); i += step {
			t.t[sub.value()+i] = e
		}
	}
	return true
}

// The entries of the symbols of each alphabet, without their lengths.
var (
	litSyms  [maxSymbols]entry
	distSyms [32]entry
	lenSyms  [19]entry
)

func init() {
	for s := range 256 {
		litSyms[s] = makeEntry(kindLiteral, 0, uint32(s))
	}
	litSyms[256] = kindEnd
	base := uint32(3)
	for s := 257; s < 285; s++ {
		extra := uint32(0)
		if s >= 265 {
			extra = uint32(s-261) / 4
		}
		litSyms[s] = makeEntry(kindMatch, extra, base)
		base += 1 << extra
	}
	litSyms[285] = makeEntry(kindMatch, 0, 258)
	litSyms[286], litSyms[287] = kindInvalid, kindInvalid
	base = 1
	for s := range 30 {
		extra := uint32(0)
		if s >= 4 {
			extra = uint32(s-2) / 2
		}
		distSyms[s] = makeEntry(kindMatch, extra, base)
		base += 1 << extra
	}
	distSyms[30], distSyms[31] = kindInvalid, kindInvalid
	for s := range lenSyms {
		lenSyms[s] = makeEntry(kindLiteral, 0, uint32(s))
	}
}

// The tables of the fixed codes (RFC 1951, 3.2.6).
var fixedLit, fixedDist table

func init() {
	var lens [maxSymbols]uint8
	for s := range lens {
		switch {
		case s < 144:
			lens[s] = 8
		case s < 256:
			lens[s] = 9
		case s < 280:
			lens[s] = 7
		default:
			lens[s] = 8
		}
	}
	fixedLit.build(lens[:], litSyms[:], litPrimary)
	for s := range 32 {
		lens[s] = 5
	}
	fixedDist.build(lens[:32], distSyms[:], distPrimary)
}
