package reflector

// SetRand replaces the reflector's source of randomness (jitter and watch
// timeouts) with f, which must return numbers in [0, 1).
func (r *Reflector[T]) SetRand(f func() float64) { r.rand = f }
