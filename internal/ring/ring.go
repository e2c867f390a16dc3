// Package ring provides Ring, a growable FIFO ring buffer.
package ring

// Ring is a first-in first-out queue backed by a circular slice that doubles
// when full. Popped slots are cleared so the buffer never pins values that
// have left it.
//
// The zero value is an empty ring ready to use. A Ring is not safe for
// simultaneous use by multiple goroutines.
type Ring[T any] struct {
	buf  []T // len(buf) is zero or a power of two
	head int // index of the oldest element
	n    int // number of elements held
}

// Len returns the number of elements in the ring.
func (r *Ring[T]) Len() int { return r.n }

// Push appends v at the back of the ring, growing it if it is full.
func (r *Ring[T]) Push(v T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// PushFront inserts v at the front of the ring, so that it is popped next.
func (r *Ring[T]) PushFront(v T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.head = (r.head - 1) & (len(r.buf) - 1)
	r.buf[r.head] = v
	r.n++
}

// Pop removes and returns the oldest element. It reports false, with the
// zero value, when the ring is empty.
func (r *Ring[T]) Pop() (T, bool) {
	var zero T
	if r.n == 0 {
		return zero, false
	}
	v := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return v, true
}

// Peek returns the oldest element without removing it. It reports false,
// with the zero value, when the ring is empty.
func (r *Ring[T]) Peek() (T, bool) {
	if r.n == 0 {
		var zero T
		return zero, false
	}
	return r.buf[r.head], true
}

// At returns the i-th oldest element; At(0) is the element Pop would return.
// It panics if i is out of range, like a slice index.
func (r *Ring[T]) At(i int) T {
	if i < 0 || i >= r.n {
		panic("ring: index out of range")
	}
	return r.buf[(r.head+i)&(len(r.buf)-1)]
}

// Clear removes every element, keeping the allocated buffer.
func (r *Ring[T]) Clear() {
	clear(r.buf)
	r.head, r.n = 0, 0
}

// grow doubles the buffer (starting at 8 slots), moving the elements so that
// the oldest is at index 0.
func (r *Ring[T]) grow() {
	size := max(8, 2*len(r.buf))
	buf := make([]T, size)
	if r.n > 0 {
		k := copy(buf, r.buf[r.head:])
		copy(buf[k:], r.buf[:r.head])
	}
	r.buf, r.head = buf, 0
}
