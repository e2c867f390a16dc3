package informer

import (
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/queue"
)

// PriorityAdder is the part of a [queue.TypedPriorityQueue] that
// [PriorityEnqueue] uses.
type PriorityAdder[K comparable] interface {
	AddWithOptions(item K, o queue.AddOptions)
}

// PriorityEnqueue returns a handler that adds to q the item itemOf maps
// each notified object to, at a priority that tells confirmations from
// changes:
//
//   - at [queue.PriorityLow], the adds of the initial list (inInitialList,
//     also set for the replay a handler added later receives) and resyncs:
//     updates whose old and new states have the same non-empty resource
//     version, as a periodic resync or a relist that found the object
//     unchanged delivers;
//   - at [queue.PriorityNormal], every other add, update and deletion.
//
// After a restart a controller's live changes are then served before the
// replay of every object, and the replay is still served, in bounded time
// (see the queue package's documentation). controller-runtime's event
// handlers do the same with handler.WithLowPriorityWhenUnchanged. A resync of a source without
// resource versions cannot be told from a change and is added at
// PriorityNormal.
//
// itemOf returns false for objects that map to no item. It receives the
// object's key and the object: for a deletion, [Deleted.Key] and
// [Deleted.Object], which is the zero T if no state of the object is known,
// so that itemOf can still map such a deletion to an item from its key
// alone; for an add or update, the key [keys.Of] gives the object (the
// informer's key unless its Options.KeyFunc replaces keys.Of, "" if keys.Of
// fails). Building that key costs one allocation per add or update. itemOf
// runs on the registration's goroutine, like any handler.
//
//	inf.AddEventHandler(informer.PriorityEnqueue(q, func(key string, _ *Foo) (string, bool) {
//		return key, true
//	}))
func PriorityEnqueue[T keys.Object, K comparable](q PriorityAdder[K], itemOf func(key string, obj T) (K, bool)) HandlerFuncs[T] {
	add := func(key string, obj T, p queue.Priority) {
		if item, ok := itemOf(key, obj); ok {
			q.AddWithOptions(item, queue.AddOptions{Priority: p})
		}
	}
	keyOf := func(obj T) string {
		key, _ := keys.Of(obj) // "" on error, as documented
		return key
	}
	return HandlerFuncs[T]{
		AddFunc: func(obj T, inInitialList bool) {
			if inInitialList {
				add(keyOf(obj), obj, queue.PriorityLow)
				return
			}
			add(keyOf(obj), obj, queue.PriorityNormal)
		},
		UpdateFunc: func(old, new T) {
			if rv := new.GetResourceVersion(); rv != "" && rv == old.GetResourceVersion() {
				add(keyOf(new), new, queue.PriorityLow)
				return
			}
			add(keyOf(new), new, queue.PriorityNormal)
		},
		DeleteFunc: func(d Deleted[T]) { add(d.Key, d.Object, queue.PriorityNormal) },
	}
}
