package deltafifo

import (
	"context"

	"github.com/typedcache/typedcache/internal/ring"
)

// wakeup is a registration, with context.AfterFunc, that wakes the waiting
// poppers when a context is done. The FIFO keeps the last one it made, so
// that a consumer waiting again and again with the same context registers
// once rather than at every wait.
type wakeup struct {
	done    <-chan struct{} // the Done channel of the context registered with
	stop    func() bool     // the AfterFunc registration's stop
	waiting int             // number of poppers waiting on it
}

// waitLocked waits until a key is ready. It returns ctx.Err() if ctx is
// done, and ErrClosed if the FIFO is closed with no key ready. Requires
// f.mu held; f.mu is released while waiting.
func (f *DeltaFIFO[T]) waitLocked(ctx context.Context) error {
	var w *wakeup
	for {
		if f.ready.Len() == 0 {
			f.releaseLocked()
		}
		if err := ctx.Err(); err != nil {
			f.endWaitLocked(w)
			return err
		}
		if f.ready.Len() > 0 {
			f.endWaitLocked(w)
			return nil
		}
		if f.closed {
			f.endWaitLocked(w)
			return ErrClosed
		}
		if w == nil && ctx.Done() != nil { // a context never done needs no wakeup
			w = f.wakeupLocked(ctx)
		}
		f.cond.Wait()
	}
}

// wakeupLocked returns a registration that broadcasts f.cond when ctx is
// done, counting the caller among its waiters: the kept one if it is for
// ctx's Done channel, else a new one, kept in place of the old one unless
// that one has waiters. Requires f.mu held.
func (f *DeltaFIFO[T]) wakeupLocked(ctx context.Context) *wakeup {
	done := ctx.Done()
	if w := f.wake; w != nil {
		if w.done == done {
			w.waiting++
			return w
		}
		if w.waiting == 0 {
			w.stop()
			f.wake = nil
		}
	}
	w := &wakeup{done: done, waiting: 1}
	w.stop = context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.wake == w {
			f.wake = nil
		}
		f.cond.Broadcast()
	})
	if f.wake == nil {
		f.wake = w
	}
	return w
}

// endWaitLocked removes a popper from the waiters of w, if not nil, and
// stops w when it is no longer kept and nobody waits on it. Requires f.mu
// held.
func (f *DeltaFIFO[T]) endWaitLocked(w *wakeup) {
	if w == nil {
		return
	}
	w.waiting--
	if w.waiting == 0 && w != f.wake {
		w.stop()
	}
}

// dropWakeupLocked forgets the kept registration, stopping it unless
// poppers wait on it (they stop it when they leave). Requires f.mu held.
func (f *DeltaFIFO[T]) dropWakeupLocked() {
	if w := f.wake; w != nil {
		f.wake = nil
		if w.waiting == 0 {
			w.stop()
		}
	}
}

// releaseLocked is called when a popper finds no key ready. If nothing is
// in flight either and deltas came since the last time, the FIFO is
// drained: it tells its release policy the most slots that held deltas at
// once since the last drain, and releases the slots, the index and the
// ready ring if the policy says so. The next deltas grow a released FIFO
// again, at an amortized O(1) per slot. Requires f.mu held and no key
// ready.
func (f *DeltaFIFO[T]) releaseLocked() {
	if f.inflight > 0 {
		return
	}
	peak := f.slots.peak()
	if peak == 0 {
		return // nothing happened since the last drain
	}
	f.slots.mark()
	if !f.release.drained(int(f.slots.len())-1, peak) {
		return
	}
	// Nothing is queued or in flight, hence nothing parked: every slot is
	// spare, and no slot number is held outside the lock.
	f.slots = slots[T]{}
	f.slots.init()
	f.index.reset(0)
	f.indexHint = 0
	f.ready = ring.Ring[int32]{}
}
