package informer

// HandlerStats is a snapshot of one registration's counters.
type HandlerStats struct {
	// Pending is the number of notifications received and not yet
	// delivered: waiting in the buffer, or taken by the handler's
	// goroutine, including the one being handled.
	Pending int
	// Delivered counts handler calls that returned or panicked.
	Delivered uint64
	// Panics counts handler calls that panicked.
	Panics uint64
	// Coalesced counts notifications merged into a pending one by a full
	// Coalesce buffer.
	Coalesced uint64
	// BlockedPushes counts the times the informer waited for room in a
	// full Block buffer.
	BlockedPushes uint64
}
