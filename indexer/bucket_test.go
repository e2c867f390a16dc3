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

// TestUpdateKeepsTheBucketsOfValuesThatStay pins that an update leaves the
// buckets of the values an entry keeps alone, even when the entry is their
// only member, and deletes those of the values it drops.
func TestUpdateKeepsTheBucketsOfValuesThatStay(t *testing.T) {
	tests := []struct {
		name     string
		old, new []string
		kept     []string
	}{
		{"one value kept, one replaced", []string{"a", "b"}, []string{"c", "a"}, []string{"a"}},
		{"values reordered", []string{"a", "b"}, []string{"b", "a"}, []string{"a", "b"}},
		{"down to one value", []string{"a", "b", "c"}, []string{"b"}, []string{"b"}},
		{"up from one value", []string{"a"}, []string{"b", "a", "b"}, []string{"a"}},
	}
	for _, tt := range tests {
		ix := newIndex()
		ix.insert(0, tt.old)
		before := maps.Clone(ix.buckets)
		ix.update(0, tt.new)
		for _, v := range tt.kept {
			if ix.buckets[v] != before[v] {
				t.Errorf("%s: the bucket of %q was re-created", tt.name, v)
			}
		}
		for _, v := range tt.old {
			if _, ok := ix.buckets[v]; ok != slices.Contains(tt.new, v) {
				t.Errorf("%s: bucket of %q present %t, want %t", tt.name, v, ok, !ok)
			}
		}
		if got, want := slices.Sorted(maps.Keys(ix.buckets)), slices.Compact(slices.Sorted(slices.Values(tt.new))); !slices.Equal(got, want) {
			t.Errorf("%s: buckets %q, want %q", tt.name, got, want)
		}
	}
}
