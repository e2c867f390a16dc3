package informer

import (
	"errors"
	"fmt"
	"slices"

	"github.com/typedcache/typedcache/internal/fanout"
)

// replayChunk is how many notifications of a replay are pushed at once.
const replayChunk = 1024

// AddEventHandler registers h with the default HandlerOptions. See
// AddEventHandlerWithOptions.
func (inf *Informer[T]) AddEventHandler(h Handler[T]) (*Registration[T], error) {
	return inf.AddEventHandlerWithOptions(h, HandlerOptions{})
}

// AddEventHandlerWithOptions registers h. Before Run, h will receive the
// initial list as it is applied. After Run started, h first receives an
// OnAdd(obj, true) for every object cached at this instant, then the
// notifications of every later change, with nothing missed or repeated in
// between. It fails with ErrStopped once the informer has stopped, and
// with an error naming the field for a buffer whose Overflow is neither
// Block nor Coalesce.
func (inf *Informer[T]) AddEventHandlerWithOptions(h Handler[T], opts HandlerOptions) (*Registration[T], error) {
	if h == nil {
		return nil, fmt.Errorf("informer: AddEventHandler called with a nil handler")
	}
	if inf.zero() {
		return nil, errZero
	}
	buf := opts.Buffer
	if buf.Size == 0 {
		buf = inf.defaultBuffer
	}
	if buf.Overflow != Block && buf.Overflow != Coalesce {
		return nil, fmt.Errorf("informer: buffer overflow policy %v: want Block or Coalesce", buf.Overflow)
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped {
		return nil, inf.stoppedErrLocked()
	}
	inf.sequence++
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("%s#%d", inf.name, inf.sequence)
	}
	l := inf.newListener(h, name, buf)
	inf.setResyncLocked(l, opts.ResyncPeriod)
	reg := &Registration[T]{l: l, name: name, owner: inf, stopped: inf.stoppedCh}

	if !inf.started {
		inf.addListenerLocked(l)
		return reg, nil
	}

	inf.deltaMu.Lock()
	defer inf.deltaMu.Unlock()
	inf.wg.Go(l.Run)
	inf.replay(l)
	inf.addListenerLocked(l)
	if inf.isSynced.Load() {
		l.MarkUpstreamSynced()
	}
	return reg, nil
}

// replay pushes an initial-list add for every cached object to l.
// Requires deltaMu held, so that no delta is applied meanwhile.
func (inf *Informer[T]) replay(l *fanout.Listener[T]) {
	ns := make([]fanout.Notification[T], 0, min(inf.cache.Len(), replayChunk))
	for key, obj := range inf.cache.All() {
		ns = append(ns, fanout.Notification[T]{Key: key, Obj: obj, Kind: fanout.Add, Initial: true})
		if len(ns) == cap(ns) {
			l.PushUnbounded(ns)
			ns = ns[:0]
		}
	}
	l.PushUnbounded(ns)
}

// addListenerLocked adds l to the listener set. Requires mu held, and
// deltaMu too once Run has started.
func (inf *Informer[T]) addListenerLocked(l *fanout.Listener[T]) {
	ls := *inf.listeners.Load()
	next := append(slices.Clip(ls), l)
	inf.listeners.Store(&next)
}

// RemoveEventHandler stops delivering notifications to the handler of
// reg and drops those pending. A handler call in progress finishes; wait
// on reg.Done to know when. Removing a registration twice does nothing;
// a nil registration is an error, and so is a registration from another
// informer (ErrForeignRegistration).
func (inf *Informer[T]) RemoveEventHandler(reg *Registration[T]) error {
	if reg == nil {
		return errors.New("informer: RemoveEventHandler needs the Registration that AddEventHandler returned, got nil")
	}
	if reg.owner != inf {
		return ErrForeignRegistration
	}
	// Stopping first releases a processing goroutine blocked on this
	// handler's full buffer.
	reg.l.Stop()
	inf.mu.Lock()
	defer inf.mu.Unlock()
	ls := *inf.listeners.Load()
	if i := slices.Index(ls, reg.l); i >= 0 {
		next := slices.Delete(slices.Clone(ls), i, i+1)
		inf.listeners.Store(&next)
	}
	return nil
}
