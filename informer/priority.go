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
// itemOf returns false for objects that map to no item. For a deletion it
// receives [Deleted.Object], the zero T if no state of the object is known.
// It runs on the registration's goroutine, like any handler.
//
//	inf.AddEventHandler(informer.PriorityEnqueue(q, func(f *Foo) (FooKey, bool) {
//		return FooKey{f.Namespace, f.Name}, true
//	}))
func PriorityEnqueue[T keys.Object, K comparable](q PriorityAdder[K], itemOf func(obj T) (K, bool)) HandlerFuncs[T] {
	add := func(obj T, p queue.Priority) {
		if item, ok := itemOf(obj); ok {
			q.AddWithOptions(item, queue.AddOptions{Priority: p})
		}
	}
	return HandlerFuncs[T]{
		AddFunc: func(obj T, inInitialList bool) {
			if inInitialList {
				add(obj, queue.PriorityLow)
				return
			}
			add(obj, queue.PriorityNormal)
		},
		UpdateFunc: func(old, new T) {
			if rv := new.GetResourceVersion(); rv != "" && rv == old.GetResourceVersion() {
				add(new, queue.PriorityLow)
				return
			}
			add(new, queue.PriorityNormal)
		},
		DeleteFunc: func(d Deleted[T]) { add(d.Object, queue.PriorityNormal) },
	}
}
