package informer

import (
	"fmt"
	"slices"
	"time"
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
// between. It fails with ErrStopped once the informer has stopped.
func (inf *Informer[T]) AddEventHandlerWithOptions(h Handler[T], opts HandlerOptions) (*Registration[T], error) {
	if h == nil {
		return nil, fmt.Errorf("informer: AddEventHandler called with a nil handler")
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped || inf.stopping.Load() {
		return nil, ErrStopped
	}
	inf.sequence++
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("%s#%d", inf.name, inf.sequence)
	}
	buf := opts.Buffer
	if buf.Size == 0 {
		buf = inf.defaultBuffer
	}
	l := newListener(h, name, buf, inf.reportError)
	inf.setResyncLocked(l, opts.ResyncPeriod)
	reg := &Registration[T]{l: l, owner: inf, stopped: inf.stoppedCh}

	if !inf.started {
		inf.addListenerLocked(l)
		return reg, nil
	}

	inf.deltaMu.Lock()
	defer inf.deltaMu.Unlock()
	l.start()
	inf.wg.Go(l.run)
	inf.replay(l)
	inf.addListenerLocked(l)
	if inf.isSynced.Load() {
		l.markUpstreamSynced()
	}
	return reg, nil
}

// replay pushes an initial-list add for every cached object to l.
// Requires deltaMu held, so that no delta is applied meanwhile.
func (inf *Informer[T]) replay(l *listener[T]) {
	ns := make([]notification[T], 0, min(inf.cache.Len(), replayChunk))
	for key, obj := range inf.cache.All() {
		ns = append(ns, notification[T]{key: key, obj: obj, kind: kindAdd, initial: true})
		if len(ns) == cap(ns) {
			l.push(ns, true)
			ns = ns[:0]
		}
	}
	l.push(ns, true)
}

// addListenerLocked adds l to the listener set. Requires mu held, and
// deltaMu too once Run has started.
func (inf *Informer[T]) addListenerLocked(l *listener[T]) {
	ls := *inf.listeners.Load()
	next := append(slices.Clip(ls), l)
	inf.listeners.Store(&next)
}

// RemoveEventHandler stops delivering notifications to the handler of
// reg and drops those pending. A handler call in progress finishes; wait
// on reg.Done to know when. Removing a registration twice does nothing;
// a registration from another informer is an error
// (ErrForeignRegistration).
func (inf *Informer[T]) RemoveEventHandler(reg *Registration[T]) error {
	if reg == nil || reg.owner != inf {
		return ErrForeignRegistration
	}
	// Stopping first releases a processing goroutine blocked on this
	// handler's full buffer.
	reg.l.stop()
	inf.mu.Lock()
	defer inf.mu.Unlock()
	ls := *inf.listeners.Load()
	if i := slices.Index(ls, reg.l); i >= 0 {
		next := slices.Delete(slices.Clone(ls), i, i+1)
		inf.listeners.Store(&next)
	}
	return nil
}

// setResyncLocked applies client-go's resync rules to a new listener
// asking for period (0: the informer's default; negative: never).
// Requires mu held.
func (inf *Informer[T]) setResyncLocked(l *listener[T], period time.Duration) {
	switch {
	case period == 0:
		period = inf.defaultResync
	case period < 0:
		period = 0
	}
	if period > 0 {
		period = max(period, MinResyncPeriod)
		if period < inf.check {
			if inf.started {
				// The reflector's timer is running at the check period
				// and cannot tick faster.
				period = inf.check
			} else {
				inf.check = period
				for _, other := range *inf.listeners.Load() {
					other.resync.period = effectiveResync(other.resync.requested, period)
				}
			}
		}
	}
	l.resync.requested = period
	l.resync.period = effectiveResync(period, inf.check)
	l.resync.next = time.Now().Add(l.resync.period)
}

// effectiveResync returns the period a listener asking for requested gets
// from an informer checking every check: none if either is zero, and at
// least check.
func effectiveResync(requested, check time.Duration) time.Duration {
	if requested == 0 || check == 0 {
		return 0
	}
	return max(requested, check)
}

// shouldResync is the reflector's ShouldResync: it marks due the
// listeners whose resync period has elapsed (and only those: resync
// notifications go to them until the next check), schedules their next
// resync, and reports whether any is due.
func (inf *Informer[T]) shouldResync() bool {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	now := time.Now()
	anyDue := false
	for _, l := range *inf.listeners.Load() {
		r := &l.resync
		due := r.period > 0 && !now.Before(r.next)
		r.due.Store(due)
		if due {
			r.next = now.Add(r.period)
			anyDue = true
		}
	}
	return anyDue
}
