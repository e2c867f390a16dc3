package informer

import (
	"fmt"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/keys"
)

// source is the reflector.Store the reflector of an informer writes into:
// watch events go through route, lists through routeList, resyncs to the
// FIFO.
type source[T keys.Object] struct{ inf *Informer[T] }

// Add routes the watch event of an object's creation.
func (s source[T]) Add(obj T) error { return s.inf.route(deltafifo.Added, obj) }

// Update routes the watch event of an object's change.
func (s source[T]) Update(obj T) error { return s.inf.route(deltafifo.Updated, obj) }

// Delete routes the watch event of an object's deletion.
func (s source[T]) Delete(obj T) error { return s.inf.route(deltafifo.Deleted, obj) }

// Replace routes a list.
func (s source[T]) Replace(items []T, resourceVersion string) error {
	return s.inf.routeList(items, resourceVersion)
}

// Resync queues a resync of the cached objects.
func (s source[T]) Resync() error { return s.inf.fifo.Resync() }

// projectingStore is the reflector.Store of NewProjected: it projects
// every object of the source type S into the cached type T.
type projectingStore[S, T keys.Object] struct {
	project func(S) (T, error)
	next    source[T]
}

// Add projects and routes an addition.
func (s projectingStore[S, T]) Add(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Add(t)
}

// Update projects and routes an update.
func (s projectingStore[S, T]) Update(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Update(t)
}

// Delete projects and routes a deletion.
func (s projectingStore[S, T]) Delete(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Delete(t)
}

// Replace projects every item, then routes the list; a projection error
// leaves the FIFO and the cache unchanged.
func (s projectingStore[S, T]) Replace(items []S, resourceVersion string) error {
	ts := make([]T, len(items))
	for i, obj := range items {
		t, err := s.apply(obj)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	return s.next.Replace(ts, resourceVersion)
}

// Resync queues a resync of the cached (already projected) objects.
func (s projectingStore[S, T]) Resync() error { return s.next.Resync() }

// apply projects obj, wrapping a failure with the object's identity.
func (s projectingStore[S, T]) apply(obj S) (T, error) {
	t, err := s.project(obj)
	if err != nil {
		return t, fmt.Errorf("informer: projecting %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return t, nil
}
