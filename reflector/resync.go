package reflector

import (
	"context"
	"time"
)

// resyncClock paces Store.Resync calls while the reflector watches. It is
// a context that ends when the next resync is due (or when the reflector's
// own context ends), so that one wait for a watch event also waits for the
// resync, and a resync that falls due during a stream of events is seen
// after the event at hand.
//
// With resync disabled, its context is the reflector's and never falls due
// on its own.
type resyncClock struct {
	parent context.Context
	period time.Duration
	ctx    context.Context
	cancel context.CancelFunc
}

// newResyncClock starts the resync clock of one watch phase.
func (r *Reflector[T]) newResyncClock(ctx context.Context) *resyncClock {
	c := &resyncClock{parent: ctx, period: r.resyncPeriod, ctx: ctx, cancel: func() {}}
	c.restart()
	return c
}

// restart sets the next resync a full period from now.
func (c *resyncClock) restart() {
	if c.period <= 0 {
		return
	}
	c.cancel()
	c.ctx, c.cancel = context.WithTimeout(c.parent, c.period)
}

// context returns the context that ends at the next resync.
func (c *resyncClock) context() context.Context { return c.ctx }

// due returns a channel closed when the next resync is due, or when the
// reflector's context ends.
func (c *resyncClock) due() <-chan struct{} { return c.ctx.Done() }

// stop releases the clock's timer.
func (c *resyncClock) stop() { c.cancel() }

// resync serves a due resync: it asks ShouldResync, calls Store.Resync if
// so, and restarts the clock for a full period. It does nothing once the
// reflector's context has ended.
func (r *Reflector[T]) resync(ctx context.Context, c *resyncClock) error {
	if ctx.Err() != nil {
		return nil
	}
	defer c.restart()
	if r.shouldResync != nil && !r.shouldResync() {
		return nil
	}
	r.log.DebugContext(ctx, "resync")
	r.counters.resyncs.Add(1)
	if err := r.store.Resync(); err != nil {
		return storeError("resync", err)
	}
	return nil
}
