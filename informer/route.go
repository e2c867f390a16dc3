package informer

import (
	"fmt"
	"slices"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/internal/fanout"
)

// route and routeList take what the reflector reports, a watch event or a
// list, and choose its path: these are the only places where that choice
// is made.
//
// route takes a watch event. The event is applied to the cache,
// and its notification pushed to the handler, right here on the
// reflector's goroutine, sparing the processing goroutine's wakeup, when
// all of these hold:
//
//   - the informer has synced: until then, the first list's deltas may
//     be in the FIFO, which counts them for HasSynced;
//   - nobody else holds the cache: the processing goroutine applying a
//     batch, or a handler being added, holds deltaMu;
//   - the listeners allow it (see direct);
//   - the FIFO is idle: no earlier delta is queued or being processed, so
//     none is overtaken.
//
// Otherwise the event is queued in the FIFO for the processing goroutine.
// The conditions read under deltaMu keep holding until it is released:
// listeners change only under deltaMu once Run started, and the FIFO,
// which only this goroutine feeds, stays idle until it records something.
func (inf *Informer[T]) route(t deltafifo.DeltaType, obj T) error {
	if inf.isSynced.Load() && inf.deltaMu.TryLock() {
		if ls := *inf.listeners.Load(); direct(ls) && inf.fifo.Idle() {
			err := inf.applyEventLocked(t, obj, ls)
			inf.deltaMu.Unlock()
			return err
		}
		inf.deltaMu.Unlock()
	}
	switch t {
	case deltafifo.Added:
		return inf.fifo.Add(obj)
	case deltafifo.Updated:
		return inf.fifo.Update(obj)
	}
	return inf.fifo.Delete(obj)
}

// direct reports whether the reflector's goroutine may apply watch events
// for listeners ls: at most one handler, whose buffer is not bounded with
// Block. A push to a full Block buffer waits for the handler, which only
// the processing goroutine may do, so that the reflector never waits. And
// each further handler would cost the reflector a push, often a wakeup,
// per event, where the processing goroutine pushes whole batches.
func direct[T any](ls []*fanout.Listener[T]) bool {
	switch len(ls) {
	case 0:
		return true
	case 1:
		return !ls[0].MayBlock()
	}
	return false
}

// applyEventLocked applies a watch event to the cache as the processing
// goroutine would have (key function and transform included) and pushes
// its notification to ls. Requires deltaMu held.
func (inf *Informer[T]) applyEventLocked(t deltafifo.DeltaType, obj T, ls []*fanout.Listener[T]) error {
	key, err := inf.fifoKey(obj)
	if err != nil {
		return fmt.Errorf("informer: computing key: %w", err)
	}
	if inf.transform != nil {
		if obj, err = inf.transform(obj); err != nil {
			return fmt.Errorf("informer: transforming %q: %w", key, err)
		}
	}
	n, ok := inf.applyDelta(key, deltafifo.Delta[T]{Type: t, Object: obj}, false)
	if ok {
		ns := [1]fanout.Notification[T]{n}
		for _, l := range ls {
			l.Push(ns[:])
		}
	}
	return nil
}

// routeList takes a list, the source's complete content at version rv.
// A list into an empty cache is applied to the cache, and its
// notifications pushed to the handlers, right here on the reflector's
// goroutine, sparing the FIFO's bookkeeping of every object and the
// processing goroutine's wakeup, when all of these hold:
//
//   - the cache is empty: the list cannot delete anything, so no deletion
//     has to be inferred (a relist into a filled cache goes through the
//     FIFO, which infers them);
//   - nobody else holds the cache (deltaMu);
//   - no handler's buffer is bounded with Block: the reflector must never
//     wait for a handler. The notifications are pushed in batches, as the
//     processing goroutine pushes them, so any number of handlers is fine;
//   - the FIFO is idle: no earlier delta is queued or being processed.
//
// Otherwise the list replaces the FIFO's content. Either way, once the
// first list has been applied, the informer is synced.
func (inf *Informer[T]) routeList(items []T, rv string) error {
	if inf.deltaMu.TryLock() {
		if ls := *inf.listeners.Load(); !mayBlock(ls) && inf.cache.Len() == 0 && inf.fifo.Idle() {
			err := inf.applyListLocked(items, rv, ls)
			inf.deltaMu.Unlock()
			if err != nil {
				return err
			}
			inf.checkSynced()
			return nil
		}
		inf.deltaMu.Unlock()
	}
	if err := inf.fifo.Replace(items, rv); err != nil {
		return err
	}
	// A first list that queued nothing (an empty source) is synced at
	// once: no pop will check.
	inf.checkSynced()
	return nil
}

// mayBlock reports whether a push to one of ls may wait for its handler.
func mayBlock[T any](ls []*fanout.Listener[T]) bool {
	return slices.ContainsFunc(ls, (*fanout.Listener[T]).MayBlock)
}

// applyListLocked applies a list to the empty cache as the processing
// goroutine would have applied the FIFO's deltas for it (key function and
// transform included) and pushes the notifications to ls. Like the FIFO's
// Replace, it computes every key and transform first, and applies nothing
// if one fails. Requires deltaMu held, the cache empty and the FIFO idle.
func (inf *Informer[T]) applyListLocked(items []T, rv string, ls []*fanout.Listener[T]) error {
	keys := make([]string, len(items))
	objs := items
	if inf.transform != nil {
		objs = make([]T, len(items))
	}
	for i, obj := range items {
		key, err := inf.fifoKey(obj)
		if err != nil {
			return fmt.Errorf("informer: list item %d: computing key: %w", i, err)
		}
		if inf.transform != nil {
			if obj, err = inf.transform(obj); err != nil {
				return fmt.Errorf("informer: list item %d: transforming %q: %w", i, key, err)
			}
		}
		keys[i], objs[i] = key, obj
	}
	// The FIFO, idle and knowing no object (the cache is empty), records
	// the list without queueing anything: it must know whether the first
	// list has come, for HasSynced and for InInitialList.
	first := !inf.fifo.HasSynced() // an idle FIFO has synced once it has a list
	if err := inf.fifo.Replace(nil, rv); err != nil {
		return err
	}
	ns := make([]fanout.Notification[T], 0, min(len(objs), batchSize))
	for i, obj := range objs {
		if n, ok := inf.applyDelta(keys[i], deltafifo.Delta[T]{Type: deltafifo.Replaced, Object: obj}, first); ok {
			ns = append(ns, n)
		}
		if len(ns) > 0 && (len(ns) == cap(ns) || i == len(objs)-1) {
			for _, l := range ls {
				l.Push(ns)
			}
			clear(ns)
			ns = ns[:0]
		}
	}
	return nil
}
