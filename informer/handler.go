package informer

import "github.com/typedcache/typedcache/keys"

// Handler receives the notifications of one registration. The informer
// calls its methods from the registration's own goroutine, one call at a
// time, in the order the changes reached the cache; different handlers run
// concurrently and never wait for each other.
//
// A handler must not modify the objects it receives: they are the cached
// objects, shared with every other handler and with listers.
type Handler[T any] interface {
	// OnAdd reports an object new to the cache. inInitialList is true for
	// objects of the first list (or, for a handler added later, for the
	// replay of the cache it receives first).
	OnAdd(obj T, inInitialList bool)
	// OnUpdate reports a new state of a cached object. old and new have
	// the same resource version when the update is a resync.
	OnUpdate(old, new T)
	// OnDelete reports that an object left the cache.
	OnDelete(d Deleted[T])
}

// Deleted describes an object that left the cache.
type Deleted[T any] struct {
	// Key is the cache key the object was stored under.
	Key string
	// Object is the last state of the object the informer knows: the
	// state the source reported with the deletion or, when Inferred, the
	// last state that was cached. It is the zero value when no state is
	// known.
	Object T
	// Inferred reports that the source never reported this deletion: a
	// relist no longer contained the object, so the informer inferred it
	// was deleted while it was not watching, and Object may be stale
	// (client-go's DeletedFinalStateUnknown).
	Inferred bool
}

// HandlerFuncs adapts up to three functions to the Handler interface. A
// nil function ignores its notifications.
type HandlerFuncs[T any] struct {
	AddFunc    func(obj T, inInitialList bool)
	UpdateFunc func(old, new T)
	DeleteFunc func(d Deleted[T])
}

// OnAdd calls AddFunc if it is set.
func (f HandlerFuncs[T]) OnAdd(obj T, inInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, inInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f HandlerFuncs[T]) OnUpdate(old, new T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f HandlerFuncs[T]) OnDelete(d Deleted[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(d)
	}
}

// FilteringHandler passes to Handler only the objects Filter accepts, so
// that Handler sees a cache of the accepted objects: an update that makes
// an object acceptable arrives as an OnAdd, and one that makes it
// unacceptable as an OnDelete of the old state.
type FilteringHandler[T keys.Object] struct {
	// Filter reports whether obj belongs to the filtered view. It runs on
	// the registration's goroutine, like the handler.
	Filter  func(obj T) bool
	Handler Handler[T]
	// KeyFunc computes the Deleted.Key of the OnDelete an update that
	// leaves the view turns into. It must match the informer's; nil means
	// keys.Of, the informer's default.
	KeyFunc keys.Func[T]
}

// OnAdd passes obj on if Filter accepts it.
func (f FilteringHandler[T]) OnAdd(obj T, inInitialList bool) {
	if f.Filter(obj) {
		f.Handler.OnAdd(obj, inInitialList)
	}
}

// OnUpdate passes an update on, as an OnAdd, OnUpdate or OnDelete
// depending on which of the two states Filter accepts.
func (f FilteringHandler[T]) OnUpdate(old, new T) {
	wasIn, isIn := f.Filter(old), f.Filter(new)
	switch {
	case wasIn && isIn:
		f.Handler.OnUpdate(old, new)
	case isIn:
		f.Handler.OnAdd(new, false)
	case wasIn:
		keyFunc := f.KeyFunc
		if keyFunc == nil {
			keyFunc = keys.Of[T]
		}
		// old is cached under a key keyFunc already computed once, so
		// it cannot fail here for a key function that matches the informer's.
		key, _ := keyFunc(old)
		f.Handler.OnDelete(Deleted[T]{Key: key, Object: old})
	}
}

// OnDelete passes a deletion on if Filter accepts the last known state.
func (f FilteringHandler[T]) OnDelete(d Deleted[T]) {
	if f.Filter(d.Object) {
		f.Handler.OnDelete(d)
	}
}
