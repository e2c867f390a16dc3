// Package heap provides Heap, a binary min-heap ordered by a comparison
// function, without the interface boxing of container/heap.
package heap

// Heap is a binary min-heap of T ordered by a less function. It can report
// each element's position through an optional callback, so that callers can
// remove or re-prioritise an element in O(log n).
//
// A Heap is not safe for simultaneous use by multiple goroutines.
type Heap[T any] struct {
	items []T
	less  func(a, b T) bool
	moved func(v T, i int) // called whenever v lands at index i; may be nil
}

// New returns an empty heap ordered by less. If moved is not nil it is called
// with an element and its new index every time the element changes place,
// including when it is first pushed.
func New[T any](less func(a, b T) bool, moved func(v T, i int)) *Heap[T] {
	return &Heap[T]{less: less, moved: moved}
}

// Len returns the number of elements in the heap.
func (h *Heap[T]) Len() int { return len(h.items) }

// Peek returns the smallest element without removing it. It reports false
// when the heap is empty.
func (h *Heap[T]) Peek() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return h.items[0], true
}

// Push adds v to the heap.
func (h *Heap[T]) Push(v T) {
	h.items = append(h.items, v)
	h.place(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

// Pop removes and returns the smallest element. It reports false when the
// heap is empty.
func (h *Heap[T]) Pop() (T, bool) {
	if len(h.items) == 0 {
		var zero T
		return zero, false
	}
	return h.Remove(0), true
}

// Remove removes and returns the element at index i, as reported through the
// moved callback. It panics if i is out of range, like a slice index.
func (h *Heap[T]) Remove(i int) T {
	last := len(h.items) - 1
	v := h.items[i]
	if i != last {
		h.items[i] = h.items[last]
		h.place(i)
	}
	var zero T
	h.items[last] = zero
	h.items = h.items[:last]
	if i != last {
		h.Fix(i)
	}
	return v
}

// Fix restores the heap order after the element at index i changed its
// ordering key.
func (h *Heap[T]) Fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// Clear removes every element, keeping the allocated storage.
func (h *Heap[T]) Clear() {
	clear(h.items)
	h.items = h.items[:0]
}

func (h *Heap[T]) place(i int) {
	if h.moved != nil {
		h.moved(h.items[i], i)
	}
}

func (h *Heap[T]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.place(i)
	h.place(j)
}

func (h *Heap[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sifts the element at i towards the leaves and reports whether it moved.
func (h *Heap[T]) down(i int) bool {
	start, n := i, len(h.items)
	for {
		smallest := 2*i + 1
		if smallest >= n {
			break
		}
		if right := smallest + 1; right < n && h.less(h.items[right], h.items[smallest]) {
			smallest = right
		}
		if !h.less(h.items[smallest], h.items[i]) {
			break
		}
		h.swap(i, smallest)
		i = smallest
	}
	return i > start
}
