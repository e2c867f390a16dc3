package fanout

// Stats is a snapshot of a listener's counters.
type Stats struct {
	// Pending is the number of notifications pushed and not yet
	// delivered: waiting in the buffer, or taken by Run, including the
	// one being delivered.
	Pending int
	// Delivered counts deliveries that returned or panicked.
	Delivered uint64
	// Panics counts deliveries that panicked.
	Panics uint64
	// Coalesced counts notifications merged into a pending one by a full
	// Coalesce buffer.
	Coalesced uint64
	// BlockedPushes counts the times a push waited for room in a full
	// Block buffer.
	BlockedPushes uint64
}

// Name returns Options.Name.
func (l *Listener[T]) Name() string { return l.name }

// Stats returns a snapshot of the listener's counters. It takes the
// buffer's mutex briefly and allocates nothing.
func (l *Listener[T]) Stats() Stats {
	l.mu.Lock()
	waiting := l.buf.len + l.over.Len()
	s := Stats{Coalesced: l.coalesced, BlockedPushes: l.blocked}
	l.mu.Unlock()
	s.Pending = waiting + int(l.inflight.Load())
	s.Delivered = l.delivered.Load()
	s.Panics = l.panicked.Load()
	return s
}
