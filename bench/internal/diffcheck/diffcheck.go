// Package diffcheck runs differential tests: it drives client-go and
// typedcache with the same operation sequences, decoded from bytes so that
// seeded random runs and go fuzzing share one decoder, and on a divergence
// shrinks the sequence to the shortest one that still diverges.
package diffcheck

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A Run executes ops on fresh instances of both implementations and
// returns a description of the first divergence, or "" if there was none.
// It must be deterministic: the same ops diverge the same way. t is the
// running test, for runs that need one (a synctest bubble); a Run reports
// divergences through its result, not through t.
type Run[Op fmt.Stringer] func(t *testing.T, ops []Op) string

// Config sizes a seeded run.
type Config struct {
	// Sequences is the number of random sequences; each uses its own seed.
	Sequences int
	// Length is the number of bytes each sequence is decoded from.
	Length int
}

// Seeded decodes cfg.Sequences random byte strings (seeds 1, 2, ...) into
// operation sequences and runs each; the first divergence fails t with the
// shortest sequence that reproduces it. It returns the number of operations
// run.
func Seeded[Op fmt.Stringer](t *testing.T, cfg Config, decode func([]byte) []Op, run Run[Op]) int {
	t.Helper()
	total := 0
	for seed := range cfg.Sequences {
		ops := decode(Bytes(uint64(seed+1), cfg.Length))
		total += len(ops)
		if msg := run(t, ops); msg != "" {
			Fail(t, fmt.Sprintf("seed %d", seed+1), ops, run)
			return total
		}
	}
	return total
}

// Fuzz runs the sequence decoded from data and fails t, with the shortest
// reproducing sequence, if the implementations diverge.
func Fuzz[Op fmt.Stringer](t *testing.T, data []byte, decode func([]byte) []Op, run Run[Op]) {
	t.Helper()
	ops := decode(data)
	if msg := run(t, ops); msg != "" {
		Fail(t, "fuzz input", ops, run)
	}
}

// Fail shrinks ops and fails t with the shortest sequence found and its
// divergence. A divergence that depends on timing (as in an informer's
// pipeline) may not show on every run; Fail then reports the one it saw
// last while shrinking.
func Fail[Op fmt.Stringer](t *testing.T, origin string, ops []Op, run Run[Op]) {
	t.Helper()
	var seen string
	short := Shrink(ops, func(o []Op) bool {
		msg := run(t, o)
		if msg != "" {
			seen = msg
		}
		return msg != ""
	})
	var b strings.Builder
	fmt.Fprintf(&b, "client-go and typedcache diverge (%s, %d ops, shrunk to %d):\n", origin, len(ops), len(short))
	for i, op := range short {
		fmt.Fprintf(&b, "  %3d  %s\n", i, op)
	}
	fmt.Fprintf(&b, "divergence: %s", seen)
	t.Fatal(b.String())
}

// Bytes returns n pseudo-random bytes from seed.
func Bytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// Shrink returns a shortest-found subsequence of ops for which fails still
// reports true, removing chunks of halving size until no single operation
// can be removed (ddmin without the complement step). fails(ops) must be
// true.
func Shrink[Op any](ops []Op, fails func([]Op) bool) []Op {
	cur := ops
	for chunk := max(len(cur)/2, 1); ; {
		removed := false
		for start := 0; start < len(cur); {
			end := min(start+chunk, len(cur))
			try := append(append(make([]Op, 0, len(cur)-(end-start)), cur[:start]...), cur[end:]...)
			if fails(try) {
				cur = try
				removed = true
				continue
			}
			start = end
		}
		if chunk == 1 && !removed {
			return cur
		}
		if !removed {
			chunk = max(chunk/2, 1)
		}
	}
}

// Decoder reads operation arguments from a byte string; reads past the end
// return zero.
type Decoder struct {
	data []byte
	pos  int
}

// NewDecoder returns a Decoder over data.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// More reports whether bytes are left.
func (d *Decoder) More() bool { return d.pos < len(d.data) }

// Byte returns the next byte.
func (d *Decoder) Byte() byte {
	if d.pos >= len(d.data) {
		return 0
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

// Intn returns the next byte reduced to [0, n).
func (d *Decoder) Intn(n int) int { return int(d.Byte()) % n }
