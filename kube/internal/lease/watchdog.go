package lease

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Watchdog ends a term (leadership, or a shard member's right to process)
// when the renew deadline passes: RenewDeadline after the send time of the
// last successful write of the Lease. It runs on a timer of its own, so
// that a renewal request that hangs cannot delay it.
type Watchdog struct {
	renewDeadline time.Duration
	end           context.CancelCauseFunc
	lost          error
	timer         *time.Timer

	mu sync.Mutex
	// deadline is the send time of the last successful write plus
	// renewDeadline; it only moves forward.
	deadline time.Time
	lastErr  error // the error of the last failed renewal since the last success
	fired    bool  // the term has ended by the deadline; deadline no longer moves
}

// NewWatchdog starts a watchdog for a term whose last successful write was
// sent at sent. At the deadline it calls end with an error wrapping lost.
func NewWatchdog(sent time.Time, renewDeadline time.Duration, end context.CancelCauseFunc, lost error) *Watchdog {
	w := &Watchdog{renewDeadline: renewDeadline, end: end, lost: lost, deadline: sent.Add(renewDeadline)}
	w.timer = time.AfterFunc(time.Until(w.deadline), w.fire)
	return w
}

// fire ends the term if the deadline has passed. A firing scheduled for
// an earlier deadline, which Renewed has since moved, does nothing: Renewed
// has already rescheduled the timer.
func (w *Watchdog) fire() {
	w.mu.Lock()
	if w.fired || time.Now().Before(w.deadline) {
		w.mu.Unlock()
		return
	}
	w.fired = true
	err := w.lastErr
	w.mu.Unlock()
	cause := fmt.Errorf("%w: the Lease was not renewed within the renew deadline (%v)", w.lost, w.renewDeadline)
	if err != nil {
		cause = fmt.Errorf("%w: last error: %w", cause, err)
	}
	w.end(cause)
}

// Due returns the current deadline.
func (w *Watchdog) Due() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deadline
}

// Renewed moves the deadline to RenewDeadline after sent, the send time of
// a successful write, unless the term has already ended.
func (w *Watchdog) Renewed(sent time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d := sent.Add(w.renewDeadline); !w.fired && d.After(w.deadline) {
		w.deadline, w.lastErr = d, nil
		w.timer.Reset(time.Until(d))
	}
}

// Failed records the error of a failed renewal, for the loss's message.
func (w *Watchdog) Failed(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.lastErr = err
	}
}

// Stop stops the timer; fire may still be running.
func (w *Watchdog) Stop() { w.timer.Stop() }
