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
// listeners are added only under deltaMu once Run started (a removed one
// is stopped before it leaves the set, and drops what it is pushed), and
// the FIFO, which only this goroutine feeds, stays idle until it records
// something.
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
	key, obj, err := inf.prepare(obj)
	if err != nil {
		return fmt.Errorf("informer: %w", err)
	}
	if n, ok := inf.applyDelta(key, deltafifo.Delta[T]{Type: t, Object: obj}, false); ok {
		push(ls, []fanout.Notification[T]{n})
	}
	return nil
}

// prepare returns obj's key and obj after the transform, as the FIFO
// computes them for what it records.
func (inf *Informer[T]) prepare(obj T) (string, T, error) {
	key, err := inf.fifoKey(obj)
	if err != nil {
		return "", obj, fmt.Errorf("computing key: %w", err)
	}
	if inf.transform != nil {
		if obj, err = inf.transform(obj); err != nil {
			return "", obj, fmt.Errorf("transforming %q: %w", key, err)
		}
	}
	return key, obj, nil
}

// push hands the notifications ns to every listener of ls.
func push[T any](ls []*fanout.Listener[T], ns []fanout.Notification[T]) {
	if len(ns) == 0 {
		return
	}
	for _, l := range ls {
		l.Push(ns)
	}
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
//   - no handler's buffer is bounded with Block: the reflector does not
//     wait for a handler. The notifications are pushed in batches, as the
//     processing goroutine pushes them, so any number of handlers is fine;
//   - the FIFO is idle: no earlier delta is queued or being processed.
//
// Otherwise the list replaces the FIFO's content. Either way, once the
// first list has been applied, the informer is synced.
//
// The conditions are checked once, before the keys and transforms are
// computed without deltaMu (a Transform is the user's code, and may take
// its time). Only the reflector feeds the FIFO and, while it is idle,
// writes the cache, so the cache stays empty and the FIFO idle until the
// list is applied; but a handler may be added in the meantime, and if its
// buffer is a Block one, a push to it may make the reflector wait, as the
// processing goroutine would.
func (inf *Informer[T]) routeList(items []T, rv string) error {
	if !inf.listAppliesHere() {
		if err := inf.fifo.Replace(items, rv); err != nil {
			return err
		}
		// A first list that queued nothing (an empty source) is synced
		// at once: no pop will check.
		inf.checkSynced()
		return nil
	}
	keys, objs, err := inf.prepareList(items)
	if err != nil {
		return err
	}
	if err := inf.applyList(keys, objs, rv); err != nil {
		return err
	}
	inf.checkSynced()
	return nil
}

// listAppliesHere reports whether the reflector applies a list itself
// (see routeList).
func (inf *Informer[T]) listAppliesHere() bool {
	if !inf.deltaMu.TryLock() {
		return false
	}
	defer inf.deltaMu.Unlock()
	return !mayBlock(*inf.listeners.Load()) && inf.cache.Len() == 0 && inf.fifo.Idle()
}

// mayBlock reports whether a push to one of ls may wait for its handler.
func mayBlock[T any](ls []*fanout.Listener[T]) bool {
	return slices.ContainsFunc(ls, (*fanout.Listener[T]).MayBlock)
}

// prepareList returns the keys of a list's items and the items after the
// transform, computed as the FIFO's Replace computes them: every key
// and transform first, so that a failure applies nothing.
func (inf *Informer[T]) prepareList(items []T) ([]string, []T, error) {
	keys := make([]string, len(items))
	objs := items
	if inf.transform != nil {
		objs = make([]T, len(items))
	}
	for i, obj := range items {
		key, obj, err := inf.prepare(obj)
		if err != nil {
			return nil, nil, fmt.Errorf("informer: list item %d: %w", i, err)
		}
		keys[i], objs[i] = key, obj
	}
	return keys, objs, nil
}

// applyList applies a prepared list to the empty cache as the processing
// goroutine would have applied the FIFO's deltas for it, in batches of up
// to batchSize objects: each is applied under deltaMu, and its
// notifications are pushed, after deltaMu is released, to the handlers
// there were then (see apply). The FIFO, idle and knowing no object (the
// cache is empty), records the list without queueing anything: it must
// know whether the first list has come, for HasSynced and for
// InInitialList.
func (inf *Informer[T]) applyList(keys []string, objs []T, rv string) error {
	var first bool
	ns := make([]fanout.Notification[T], 0, min(len(objs), batchSize))
	for start := 0; start == 0 || start < len(objs); start += batchSize {
		inf.deltaMu.Lock()
		if start == 0 {
			first = !inf.fifo.HasSynced() // an idle FIFO has synced once it recorded a list or a change
			if err := inf.fifo.Replace(nil, rv); err != nil {
				inf.deltaMu.Unlock()
				return err
			}
		}
		for i := start; i < min(start+batchSize, len(objs)); i++ {
			if n, ok := inf.applyDelta(keys[i], deltafifo.Delta[T]{Type: deltafifo.Replaced, Object: objs[i]}, first); ok {
				ns = append(ns, n)
			}
		}
		ls := *inf.listeners.Load()
		inf.deltaMu.Unlock()
		push(ls, ns)
		clear(ns)
		ns = ns[:0]
	}
	return nil
}
