package ring

// AllSlotsZero reports whether every slot not holding an element is the
// zero value.
func AllSlotsZero[T comparable](r *Ring[T]) bool {
	var zero T
	for i := r.n; i < len(r.buf); i++ {
		if r.buf[(r.head+i)&(len(r.buf)-1)] != zero {
			return false
		}
	}
	return true
}
