package ring_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/internal/ring"
)

// contents returns the elements of r oldest first, through At.
func contents(r *ring.Ring[int]) []int {
	out := []int{}
	for i := range r.Len() {
		out = append(out, r.At(i))
	}
	return out
}

func TestRing(t *testing.T) {
	tests := []struct {
		name string
		ops  func(r *ring.Ring[int]) []int // returns what Pop yielded
		want []int                         // contents afterwards
		pops []int
	}{
		{
			name: "zero value is empty",
			ops:  func(r *ring.Ring[int]) []int { return nil },
			want: []int{},
		},
		{
			name: "fifo order",
			ops: func(r *ring.Ring[int]) []int {
				r.Push(1)
				r.Push(2)
				r.Push(3)
				v, _ := r.Pop()
				return []int{v}
			},
			want: []int{2, 3},
			pops: []int{1},
		},
		{
			name: "push front goes first",
			ops: func(r *ring.Ring[int]) []int {
				r.Push(1)
				r.PushFront(0)
				r.PushFront(-1)
				return nil
			},
			want: []int{-1, 0, 1},
		},
		{
			name: "growth keeps order across the wrap point",
			ops: func(r *ring.Ring[int]) []int {
				var pops []int
				for i := range 6 {
					r.Push(i)
				}
				for range 4 {
					v, _ := r.Pop()
					pops = append(pops, v)
				}
				for i := 6; i < 20; i++ { // wraps, then grows past 8
					r.Push(i)
				}
				r.PushFront(5)
				return pops
			},
			want: []int{5, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
			pops: []int{0, 1, 2, 3},
		},
		{
			name: "clear empties and the ring stays usable",
			ops: func(r *ring.Ring[int]) []int {
				for i := range 10 {
					r.Push(i)
				}
				r.Clear()
				r.Push(42)
				return nil
			},
			want: []int{42},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r ring.Ring[int]
			pops := tt.ops(&r)
			if diff := cmp.Diff(tt.pops, pops); diff != "" {
				t.Errorf("Pop results mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, contents(&r)); diff != "" {
				t.Errorf("contents mismatch (-want +got):\n%s", diff)
			}
			if r.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", r.Len(), len(tt.want))
			}
		})
	}
}

func TestEmptyRing(t *testing.T) {
	var r ring.Ring[string]
	if v, ok := r.Pop(); ok || v != "" {
		t.Errorf("Pop() on empty = %q, %t; want \"\", false", v, ok)
	}
	if v, ok := r.Peek(); ok || v != "" {
		t.Errorf("Peek() on empty = %q, %t; want \"\", false", v, ok)
	}
	for _, i := range []int{-1, 0} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) on empty did not panic", i)
				}
			}()
			r.At(i)
		}()
	}
}

// TestPopReleasesElements checks that popped slots are cleared, so the
// ring does not keep popped values alive.
func TestPopReleasesElements(t *testing.T) {
	var r ring.Ring[*int]
	for i := range 5 {
		r.Push(&i)
	}
	for range 5 {
		r.Pop()
	}
	if !ring.AllSlotsZero(&r) {
		t.Error("popped slots still hold their values")
	}
	r.Push(new(int))
	r.Clear()
	if !ring.AllSlotsZero(&r) {
		t.Error("cleared slots still hold their values")
	}
}

// FuzzRing checks Ring against a slice.
func FuzzRing(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2})
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 0, 0, 5, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var r ring.Ring[int]
		var model []int
		for i, op := range ops {
			switch op % 6 {
			case 0:
				r.Push(i)
				model = append(model, i)
			case 1:
				r.PushFront(i)
				model = append([]int{i}, model...)
			case 2:
				v, ok := r.Pop()
				if ok != (len(model) > 0) || ok && v != model[0] {
					t.Fatalf("op %d: Pop() = %d, %t; model %v", i, v, ok, model)
				}
				if ok {
					model = model[1:]
				}
			case 3:
				v, ok := r.Peek()
				if ok != (len(model) > 0) || ok && v != model[0] {
					t.Fatalf("op %d: Peek() = %d, %t; model %v", i, v, ok, model)
				}
			case 4:
				r.Clear()
				model = nil
			case 5:
				if len(model) > 0 {
					j := int(op) % len(model)
					if got := r.At(j); got != model[j] {
						t.Fatalf("op %d: At(%d) = %d, want %d", i, j, got, model[j])
					}
				}
			}
			if r.Len() != len(model) {
				t.Fatalf("op %d: Len() = %d, want %d", i, r.Len(), len(model))
			}
		}
		if diff := cmp.Diff(append([]int{}, model...), contents(&r)); diff != "" {
			t.Fatalf("contents mismatch (-model +ring):\n%s", diff)
		}
	})
}
