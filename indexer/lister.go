package indexer

import (
	"iter"

	"github.com/typedcache/typedcache/keys"
)

// Lister is a typed, read-only view of an Indexer whose objects are keyed
// by keys.Of. It is what a controller reads the cache through.
//
// A Lister is a small value; copies share the Indexer. It is safe for
// simultaneous use by multiple goroutines. Returned objects are the stored
// ones, not copies: callers must not modify them. A zero Lister, or one of
// a nil Indexer, reads as a Lister of an empty Indexer: it finds nothing.
type Lister[T keys.Object] struct {
	idx *Indexer[T]
}

// indexer returns the Indexer l reads: a zero one if l has none.
func (l Lister[T]) indexer() *Indexer[T] {
	if l.idx == nil {
		return new(Indexer[T])
	}
	return l.idx
}

// NewLister returns a Lister reading idx, which must key its objects with
// keys.Of (Get looks objects up by that key).
func NewLister[T keys.Object](idx *Indexer[T]) Lister[T] {
	return Lister[T]{idx: idx}
}

// Get returns the object with the given namespace and name; namespace is
// empty for cluster-scoped objects. It does not allocate for keys up to
// 128 bytes, and when T is a pointer type it takes no lock, so it never
// waits for writers (see the package documentation).
func (l Lister[T]) Get(namespace, name string) (T, bool) {
	return getObject(l.idx, namespace, name)
}

// List returns every object, in no particular order. Like Indexer.List it
// copies a snapshot without holding the lock.
func (l Lister[T]) List() []T {
	return l.indexer().List()
}

// All returns an iterator over every object, walking a snapshot with no
// lock held during yield (see Indexer.All).
func (l Lister[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, obj := range l.indexer().All() {
			if !yield(obj) {
				return
			}
		}
	}
}

// Select returns the objects for which match reports true, in no
// particular order. match runs on a snapshot with no lock held.
func (l Lister[T]) Select(match func(T) bool) []T {
	var out []T
	for _, obj := range l.indexer().All() {
		if match(obj) {
			out = append(out, obj)
		}
	}
	return out
}

// Namespace returns a view of the objects in one namespace, through the
// NamespaceIndex index if the Indexer has it: the Indexer keeps that index
// holding each object under its namespace alone, so the view is the same
// either way, except for objects that PutPartial stored after the index
// failed on them. The empty namespace selects the cluster-scoped objects,
// not every namespace (use the Lister itself for that).
func (l Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return NamespaceLister[T]{idx: l.idx, namespace: namespace}
}

// NamespaceLister is a Lister scoped to one namespace. It lists through
// NamespaceIndex when the Indexer has it, and otherwise filters every
// object by its namespace.
type NamespaceLister[T keys.Object] struct {
	idx       *Indexer[T]
	namespace string
}

// Get returns the object with the given name in the lister's namespace.
func (l NamespaceLister[T]) Get(name string) (T, bool) {
	return getObject(l.idx, l.namespace, name)
}

// List returns the objects in the lister's namespace, in no particular
// order.
func (l NamespaceLister[T]) List() []T {
	return l.Select(nil)
}

// Select returns the objects in the lister's namespace for which match
// reports true, in no particular order; a nil match selects all of them.
// match runs with no lock held.
func (l NamespaceLister[T]) Select(match func(T) bool) []T {
	x := Lister[T]{idx: l.idx}.indexer()
	if objs, err := x.ByIndex(NamespaceIndex, l.namespace); err == nil {
		if match == nil {
			return objs
		}
		out := objs[:0]
		for _, obj := range objs {
			if match(obj) {
				out = append(out, obj)
			}
		}
		clear(objs[len(out):])
		return out
	}
	var out []T
	for _, obj := range x.All() {
		if obj.GetNamespace() == l.namespace && (match == nil || match(obj)) {
			out = append(out, obj)
		}
	}
	return out
}
