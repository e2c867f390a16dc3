package deltafifo_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/typedcache/typedcache/deltafifo"
)

// TestKeyIndex runs random puts and removes through the key index and
// checks every key's presence against a map after each step. The hashes
// come from a small range, so that keys collide, runs of entries cross
// the end of the table and removals must move entries back.
func TestKeyIndex(t *testing.T) {
	tests := []struct {
		name   string
		keys   int
		hashes uint32 // hashes are drawn from [0, hashes) plus values near 2^32
		reset  int    // if > 0, Reset(reset) first
	}{
		{name: "all collide", keys: 40, hashes: 1},
		{name: "few hashes", keys: 200, hashes: 5},
		{name: "spread", keys: 2000, hashes: 1 << 20},
		{name: "presized", keys: 500, hashes: 64, reset: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.keys)))
			hashOf := make(map[string]uint32)
			for i := range tt.keys {
				h := rng.Uint32N(tt.hashes)
				if i%3 == 0 {
					h = ^h // near the top: runs that wrap around the table
				}
				hashOf["k"+strconv.Itoa(i)] = h
			}
			x := deltafifo.NewKeyIndex()
			if tt.reset > 0 {
				x.Reset(tt.reset)
			}
			in := make(map[string]bool)
			for step := range 10 * tt.keys {
				key := "k" + strconv.Itoa(rng.IntN(tt.keys))
				if in[key] {
					x.Remove(key, hashOf[key])
					delete(in, key)
				} else {
					x.Put(key, hashOf[key])
					in[key] = true
				}
				if x.Len() != len(in) {
					t.Fatalf("step %d: Len() = %d, want %d", step, x.Len(), len(in))
				}
				if step%17 != 0 && step < 10*tt.keys-1 {
					continue
				}
				for k, h := range hashOf {
					if got := x.Has(k, h); got != in[k] {
						t.Fatalf("step %d: Has(%q) = %v, want %v", step, k, got, in[k])
					}
				}
			}
		})
	}
}
