package informer

import (
	"fmt"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/internal/fanout"
)

// route takes a watch event from the reflector and chooses its path, the
// one place where that choice is made. The event is applied to the cache,
// and its notification pushed to the handler, right here on the
// reflector's goroutine, sparing the processing goroutine's wakeup, when
// all of these hold:
//
//   - the informer has synced: the first list's deltas go through the
//     FIFO, which counts them for HasSynced;
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
