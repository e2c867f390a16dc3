package informer

// kind says which handler method a notification is for.
type kind uint8

const (
	kindAdd kind = iota + 1
	kindUpdate
	kindDelete
)

// notification is one pending handler call. It is a plain value, stored
// inline in a listener's ring buffer: handing an event to a handler boxes
// nothing and allocates nothing.
type notification[T any] struct {
	// key is the cache key of the object; a coalescing buffer merges
	// notifications by it, and deletions report it.
	key string
	// old is the state the handler knows before this notification: the
	// old state of an update, the cached state a deletion removes.
	old T
	// obj is the new state of an add or update, or the last known state
	// of a deletion.
	obj  T
	kind kind
	// initial marks an add of the initial list: the registration is not
	// synced until it has been delivered.
	initial bool
	// inferred marks a deletion the informer inferred from a relist.
	inferred bool
	// resync marks an update with an unchanged resource version: only
	// handlers whose resync is due receive it.
	resync bool
}

// deliver calls the handler method n stands for.
func (n *notification[T]) deliver(h Handler[T]) {
	switch n.kind {
	case kindAdd:
		h.OnAdd(n.obj, n.initial)
	case kindUpdate:
		h.OnUpdate(n.old, n.obj)
	case kindDelete:
		h.OnDelete(Deleted[T]{Key: n.key, Object: n.obj, Inferred: n.inferred})
	}
}

// method names n's handler method, for reports.
func (n *notification[T]) method() string {
	switch n.kind {
	case kindAdd:
		return "OnAdd"
	case kindUpdate:
		return "OnUpdate"
	}
	return "OnDelete"
}

// merge combines n, pending in a coalescing buffer, with next, a later
// notification for the same key, into the one notification that leaves a
// handler's view of the cache where the two in sequence would. It reports
// false when the two cancel out (an add followed by its deletion), and
// whether an initial-list add was absorbed without being delivered as one.
func merge[T any](n, next notification[T]) (merged notification[T], keep, droppedInitial bool) {
	switch {
	case n.kind == kindAdd && next.kind == kindUpdate:
		// The handler has not seen the object yet: it is still an add, of
		// the newer state.
		n.obj = next.obj
		return n, true, false
	case n.kind == kindAdd && next.kind == kindDelete:
		return notification[T]{}, false, n.initial
	case n.kind == kindUpdate && next.kind == kindUpdate:
		n.obj = next.obj
		return n, true, false
	case n.kind == kindUpdate && next.kind == kindDelete:
		// The deletion removes the state the handler knows, from
		// before the update.
		next.old = n.old
		return next, true, false
	case n.kind == kindDelete && next.kind == kindAdd:
		// A deletion and re-creation the handler has not seen collapse
		// into an update from the state it knows to the new one.
		return notification[T]{key: n.key, old: n.old, obj: next.obj, kind: kindUpdate}, true, next.initial
	}
	// Nothing else can follow n for the same key; should it, the newer
	// notification wins.
	return next, true, n.kind == kindAdd && n.initial
}
