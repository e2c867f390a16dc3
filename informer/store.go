package informer

import (
	"fmt"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/keys"
)

// fifoStore is the reflector.Store the reflector of an informer writes
// into: the informer's DeltaFIFO, plus a sync check after Replace.
type fifoStore[T keys.Object] struct {
	*deltafifo.DeltaFIFO[T]
	inf *Informer[T]
}

// Replace replaces the FIFO's content and, for a first list that queued
// nothing (an empty source), marks the informer synced: no pop would.
func (s fifoStore[T]) Replace(items []T, resourceVersion string) error {
	if err := s.DeltaFIFO.Replace(items, resourceVersion); err != nil {
		return err
	}
	s.inf.checkSynced()
	return nil
}

// Add queues an addition, or applies it at once (see record).
func (s fifoStore[T]) Add(obj T) error { return s.record(deltafifo.Added, obj) }

// Update queues an update, or applies it at once (see record).
func (s fifoStore[T]) Update(obj T) error { return s.record(deltafifo.Updated, obj) }

// Delete queues a deletion, or applies it at once (see record).
func (s fifoStore[T]) Delete(obj T) error { return s.record(deltafifo.Deleted, obj) }

// record hands a watch event of a synced informer to the FIFO's Handoff,
// when handsOff allows: if the processing goroutine has nothing to do, the
// reflector's goroutine applies the event and notifies the handler itself,
// sparing a goroutine wakeup. Otherwise, and before the informer has
// synced, the event is queued.
func (s fifoStore[T]) record(t deltafifo.DeltaType, obj T) error {
	if s.inf.isSynced.Load() && handsOff(*s.inf.listeners.Load()) {
		return s.DeltaFIFO.Handoff(t, obj, s.inf.applyHanded)
	}
	switch t {
	case deltafifo.Added:
		return s.DeltaFIFO.Add(obj)
	case deltafifo.Updated:
		return s.DeltaFIFO.Update(obj)
	}
	return s.DeltaFIFO.Delete(obj)
}

// projectingStore is the reflector.Store of NewProjected: it projects
// every object of the source type S into the cached type T.
type projectingStore[S, T keys.Object] struct {
	project func(S) (T, error)
	next    fifoStore[T]
}

// Add projects and queues an addition.
func (s projectingStore[S, T]) Add(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Add(t)
}

// Update projects and queues an update.
func (s projectingStore[S, T]) Update(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Update(t)
}

// Delete projects and queues a deletion.
func (s projectingStore[S, T]) Delete(obj S) error {
	t, err := s.apply(obj)
	if err != nil {
		return err
	}
	return s.next.Delete(t)
}

// Replace projects every item, then replaces the FIFO's content; a
// projection error leaves the FIFO unchanged.
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
