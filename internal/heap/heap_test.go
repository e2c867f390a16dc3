package heap_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/internal/heap"
)

// item is a heap element that remembers where the heap keeps it.
type item struct {
	id, prio int
	index    int
}

func newItemHeap() *heap.Heap[*item] {
	return heap.New(
		func(a, b *item) bool { return a.prio < b.prio || a.prio == b.prio && a.id < b.id },
		func(v *item, i int) { v.index = i },
	)
}

// drain pops everything and returns the ids in pop order.
func drain(h *heap.Heap[*item]) []int {
	out := []int{}
	for {
		v, ok := h.Pop()
		if !ok {
			return out
		}
		out = append(out, v.id)
	}
}

func TestHeap(t *testing.T) {
	tests := []struct {
		name  string
		prios []int
		op    func(h *heap.Heap[*item], items []*item)
		want  []int // ids in pop order
	}{
		{"empty", nil, func(*heap.Heap[*item], []*item) {}, []int{}},
		{"pops in priority order", []int{5, 1, 4, 2, 3}, func(*heap.Heap[*item], []*item) {}, []int{1, 3, 4, 2, 0}},
		{"ties broken by less", []int{1, 1, 1}, func(*heap.Heap[*item], []*item) {}, []int{0, 1, 2}},
		{"remove by reported index", []int{5, 1, 4, 2, 3}, func(h *heap.Heap[*item], items []*item) {
			if got := h.Remove(items[3].index); got != items[3] {
				t.Errorf("Remove returned id %d, want 3", got.id)
			}
		}, []int{1, 4, 2, 0}},
		{"remove the last slot", []int{1, 2}, func(h *heap.Heap[*item], items []*item) {
			h.Remove(h.Len() - 1)
		}, []int{0}},
		{"fix after a priority drop", []int{5, 1, 4, 2, 3}, func(h *heap.Heap[*item], items []*item) {
			items[0].prio = 0
			h.Fix(items[0].index)
		}, []int{0, 1, 3, 4, 2}},
		{"fix after a priority rise", []int{5, 1, 4, 2, 3}, func(h *heap.Heap[*item], items []*item) {
			items[1].prio = 9
			h.Fix(items[1].index)
		}, []int{3, 4, 2, 0, 1}},
		{"clear", []int{3, 2, 1}, func(h *heap.Heap[*item], items []*item) {
			h.Clear()
			h.Push(&item{id: 7})
		}, []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newItemHeap()
			items := make([]*item, len(tt.prios))
			for i, p := range tt.prios {
				items[i] = &item{id: i, prio: p}
				h.Push(items[i])
			}
			tt.op(h, items)
			if diff := cmp.Diff(tt.want, drain(h)); diff != "" {
				t.Errorf("pop order mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPeek(t *testing.T) {
	h := heap.New(func(a, b int) bool { return a < b }, nil)
	if v, ok := h.Peek(); ok || v != 0 {
		t.Errorf("Peek() on empty = %d, %t; want 0, false", v, ok)
	}
	for _, v := range []int{3, 1, 2} {
		h.Push(v)
	}
	if v, ok := h.Peek(); !ok || v != 1 || h.Len() != 3 {
		t.Errorf("Peek() = %d, %t with Len %d; want 1, true with Len 3", v, ok, h.Len())
	}
}

// FuzzHeap checks Heap against a slice searched naively, and that the
// indexes reported through moved always match the heap's layout.
func FuzzHeap(f *testing.F) {
	f.Add([]byte{0, 5, 0, 3, 0, 9, 1, 0, 2, 1, 3, 2, 4, 1})
	f.Add([]byte{0, 1, 0, 1, 0, 1, 3, 0, 2, 7, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newItemHeap()
		var model []*item // in no order
		id := 0
		minimum := func() *item {
			return slices.MinFunc(model, func(a, b *item) int {
				if a.prio != b.prio {
					return a.prio - b.prio
				}
				return a.id - b.id
			})
		}
		for k := 0; k+1 < len(data); k += 2 {
			op, arg := data[k]%5, int(data[k+1])
			switch op {
			case 0:
				it := &item{id: id, prio: arg % 16}
				id++
				h.Push(it)
				model = append(model, it)
			case 1:
				v, ok := h.Pop()
				if ok != (len(model) > 0) {
					t.Fatalf("Pop() ok = %t with %d items", ok, len(model))
				}
				if ok {
					if want := minimum(); v != want {
						t.Fatalf("Pop() = %+v, want %+v", v, want)
					}
					model = slices.DeleteFunc(model, func(m *item) bool { return m == v })
				}
			case 2:
				if len(model) > 0 {
					victim := model[arg%len(model)]
					if got := h.Remove(victim.index); got != victim {
						t.Fatalf("Remove(%d) = %+v, want %+v", victim.index, got, victim)
					}
					model = slices.DeleteFunc(model, func(m *item) bool { return m == victim })
				}
			case 3:
				if len(model) > 0 {
					it := model[arg%len(model)]
					it.prio = (arg / 7) % 16
					h.Fix(it.index)
				}
			case 4:
				if v, ok := h.Peek(); ok != (len(model) > 0) || ok && v != minimum() {
					t.Fatalf("Peek() = %+v, %t", v, ok)
				}
			}
			if h.Len() != len(model) {
				t.Fatalf("Len() = %d, want %d", h.Len(), len(model))
			}
			seen := map[int]bool{}
			for _, it := range model {
				if it.index < 0 || it.index >= h.Len() || seen[it.index] {
					t.Fatalf("item %d reports index %d", it.id, it.index)
				}
				seen[it.index] = true
			}
		}
		var want []int
		for len(model) > 0 {
			m := minimum()
			want = append(want, m.id)
			model = slices.DeleteFunc(model, func(x *item) bool { return x == m })
		}
		if diff := cmp.Diff(append([]int{}, want...), drain(h)); diff != "" {
			t.Fatalf("drain mismatch (-model +heap):\n%s", diff)
		}
	})
}
