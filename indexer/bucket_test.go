package indexer

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPosSet compares a posSet with a map under random adds and removes
// that grow it to thousands of positions and shrink it back, checking its
// structure after every step.
func TestPosSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := &posSet{slots: make([]uint32, minSetSlots)}
	want := map[int32]bool{}
	for step := range 40_000 {
		// Remove one time in three for the first half (the set grows),
		// two times in three for the second (it shrinks).
		removals := 1
		if step >= 20_000 {
			removals = 2
		}
		p := int32(r.IntN(5000))
		if len(want) > 0 && r.IntN(3) < removals {
			p = slices.Collect(maps.Keys(want))[0]
			s.remove(p)
			delete(want, p)
		} else {
			s.add(p)
			want[p] = true
		}
		if step%97 != 0 && step < 39_990 {
			continue
		}
		if err := s.check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		got := map[int32]bool{}
		for _, v := range s.slots {
			if v != 0 {
				got[int32(v-1)] = true
			}
		}
		if !maps.Equal(got, want) {
			t.Fatalf("step %d: set holds %d positions, want %d", step, len(got), len(want))
		}
	}
	if len(s.slots) > 64 {
		t.Errorf("%d slots left for %d positions", len(s.slots), len(want))
	}
}
