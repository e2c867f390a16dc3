package reflector

import (
	"context"
	"time"
)

// resyncTimer paces Store.Resync calls while the reflector watches. Its
// zero value, used when resync is disabled, never fires.
type resyncTimer struct {
	timer  *time.Timer
	period time.Duration
}

// newResyncTimer starts the resync timer of one watch phase.
func (r *Reflector[T]) newResyncTimer() *resyncTimer {
	if r.resyncPeriod <= 0 {
		return &resyncTimer{}
	}
	return &resyncTimer{timer: time.NewTimer(r.resyncPeriod), period: r.resyncPeriod}
}

// C returns the channel on which the timer fires, or nil.
func (t *resyncTimer) C() <-chan time.Time {
	if t.timer == nil {
		return nil
	}
	return t.timer.C
}

func (t *resyncTimer) stop() {
	if t.timer != nil {
		t.timer.Stop()
	}
}

// resync handles a tick of t: it asks ShouldResync, calls Store.Resync if
// so, and restarts the timer for a full period.
func (r *Reflector[T]) resync(ctx context.Context, t *resyncTimer) error {
	defer t.timer.Reset(t.period)
	if r.shouldResync != nil && !r.shouldResync() {
		return nil
	}
	r.log.DebugContext(ctx, "resync")
	if err := r.store.Resync(); err != nil {
		return storeError("resync", err)
	}
	return nil
}
