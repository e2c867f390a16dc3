package deltafifo

// DeltaType says what kind of change a Delta records.
type DeltaType uint8

// The kinds of change a DeltaFIFO records.
const (
	// Added records an object the source reported as new.
	Added DeltaType = iota + 1
	// Updated records a new state of an object.
	Updated
	// Deleted records an object's removal. See Delta.Inferred.
	Deleted
	// Replaced records an object listed by Replace: the source's state
	// after a (re)list, which may or may not differ from the cached one.
	Replaced
	// Sync records a periodic resync (Resync) of a cached object.
	Sync
)

// String returns the delta type's name, such as "Added".
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	return "DeltaType(invalid)"
}

// Delta is one recorded change of one object.
//
// For Added, Updated, Replaced and Sync, Object is the object's new state.
// For Deleted, Object is the last state known of the object: the one the
// source reported with the deletion, or, when Inferred is set, the newest
// state the FIFO or the cache held (the zero value if neither held one).
type Delta[T any] struct {
	// Object is the object's state; see the type's documentation.
	Object T
	// Type is the kind of change.
	Type DeltaType
	// Inferred reports, on a Deleted delta, that the deletion was not
	// observed but concluded by Replace because the object was missing from
	// a relist: some deletion was missed (for example while the watch was
	// down), and Object may be older than the object's real final state.
	// It is client-go's DeletedFinalStateUnknown, without the type switch.
	Inferred bool
}

// Deltas is the list of changes of one object that have not been processed
// yet, oldest first. It is never empty when handed to a processor.
type Deltas[T any] []Delta[T]

// appendDelta appends d to ds, collapsing two consecutive deletions into
// one: the older deletion stays unless it was inferred, so an observed
// deletion always wins over an inferred one.
func appendDelta[T any](ds []Delta[T], d Delta[T]) []Delta[T] {
	if n := len(ds); n > 0 && d.Type == Deleted && ds[n-1].Type == Deleted {
		if ds[n-1].Inferred {
			ds[n-1] = d
		}
		return ds
	}
	return append(ds, d)
}
