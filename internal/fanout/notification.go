package fanout

// Kind says which change a notification reports.
type Kind uint8

const (
	// Add reports an object new to the cache.
	Add Kind = iota + 1
	// Update reports a new state of a cached object.
	Update
	// Delete reports that an object left the cache.
	Delete
)

// Notification is one pending delivery. It is a plain value, stored inline
// in a listener's buffer: pushing it boxes nothing and allocates nothing.
type Notification[T any] struct {
	// Key is the cache key of the object; a Coalesce buffer merges
	// notifications by it.
	Key string
	// Old is the state the receiver knows before this notification: the
	// old state of an update, the cached state a deletion removes.
	Old T
	// Obj is the new state of an add or update, or the last known state
	// of a deletion.
	Obj  T
	Kind Kind
	// Initial marks an add of the initial list: the listener is not
	// synced until it has been delivered (or merged away).
	Initial bool
	// Inferred marks a deletion inferred from a relist rather than
	// reported by the source.
	Inferred bool
	// Resync marks an update with an unchanged resource version: a push
	// drops it unless the listener's resync is due.
	Resync bool
}

// merge combines n, pending in a coalescing buffer, with next, a later
// notification for the same key, into the one notification that leaves a
// receiver's view of the cache where the two in sequence would. It reports
// false when the two cancel out (an add followed by its deletion), and
// whether an initial-list add was absorbed without being delivered as one.
func merge[T any](n, next Notification[T]) (merged Notification[T], keep, droppedInitial bool) {
	switch {
	case n.Kind == Add && next.Kind == Update:
		// The receiver has not seen the object yet: it is still an add,
		// of the newer state.
		n.Obj = next.Obj
		return n, true, false
	case n.Kind == Add && next.Kind == Delete:
		return Notification[T]{}, false, n.Initial
	case n.Kind == Update && next.Kind == Update:
		n.Obj = next.Obj
		return n, true, false
	case n.Kind == Update && next.Kind == Delete:
		// The deletion removes the state the receiver knows, from
		// before the update.
		next.Old = n.Old
		return next, true, false
	case n.Kind == Delete && next.Kind == Add:
		// A deletion and re-creation the receiver has not seen collapse
		// into an update from the state it knows to the new one.
		return Notification[T]{Key: n.Key, Old: n.Old, Obj: next.Obj, Kind: Update}, true, next.Initial
	}
	// Nothing else can follow n for the same key; should it, the newer
	// notification wins.
	return next, true, n.Kind == Add && n.Initial
}
