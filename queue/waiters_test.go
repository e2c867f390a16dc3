package queue

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWaitHeap pushes and pops waiters in random interleavings, with many
// equal ready times, and checks every pop against a sorted model.
func TestWaitHeap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		spread int64 // ready times are drawn from [0, spread)
	}{
		{"one", 1, 1},
		{"all equal", 100, 1},
		{"few distinct", 1000, 7},
		{"distinct", 5000, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), 7))
			var h waitHeap
			var model []waiter
			var popped, want []waiter
			for seq := uint64(1); seq <= uint64(tc.n); seq++ {
				w := waiter{at: rng.Int64N(tc.spread), seq: seq, id: int32(seq)}
				h.push(w)
				model = append(model, w)
				for rng.IntN(3) == 0 && h.len() > 0 {
					popped = append(popped, h.pop())
					least := slices.MinFunc(model, compareWaiters)
					want = append(want, least)
					model = slices.DeleteFunc(model, func(w waiter) bool { return w == least })
				}
			}
			for h.len() > 0 {
				popped = append(popped, h.pop())
			}
			slices.SortFunc(model, compareWaiters)
			want = append(want, model...)
			if diff := cmp.Diff(want, popped, cmp.AllowUnexported(waiter{})); diff != "" {
				t.Errorf("pops mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func compareWaiters(a, b waiter) int {
	switch {
	case readyBefore(a, b):
		return -1
	case readyBefore(b, a):
		return 1
	}
	return 0
}
