package leader

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// watchdog ends leadership when the renew deadline passes: RenewDeadline
// after the send time of the last successful write of the Lease. It runs
// on a timer of its own, so that a renewal request that hangs cannot delay
// it.
type watchdog struct {
	renewDeadline time.Duration
	end           context.CancelCauseFunc
	timer         *time.Timer

	mu sync.Mutex
	// deadline is the send time of the last successful write plus
	// renewDeadline; it only moves forward.
	deadline time.Time
	lastErr  error // the error of the last failed renewal since the last success
	fired    bool  // leadership has ended by the deadline; deadline no longer moves
}

func newWatchdog(sent time.Time, renewDeadline time.Duration, stop context.CancelCauseFunc) *watchdog {
	w := &watchdog{renewDeadline: renewDeadline, end: stop, deadline: sent.Add(renewDeadline)}
	w.timer = time.AfterFunc(time.Until(w.deadline), w.fire)
	return w
}

// fire ends leadership if the deadline has passed. A firing scheduled for
// an earlier deadline, which renewed has since moved, does nothing: renewed
// has already rescheduled the timer.
func (w *watchdog) fire() {
	w.mu.Lock()
	if w.fired || time.Now().Before(w.deadline) {
		w.mu.Unlock()
		return
	}
	w.fired = true
	err := w.lastErr
	w.mu.Unlock()
	cause := fmt.Errorf("%w: the Lease was not renewed within the renew deadline (%v)", ErrLost, w.renewDeadline)
	if err != nil {
		cause = fmt.Errorf("%w: last error: %w", cause, err)
	}
	w.end(cause)
}

// due returns the current deadline.
func (w *watchdog) due() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deadline
}

// renewed moves the deadline to RenewDeadline after sent, the send time of
// a successful write, unless leadership has already ended.
func (w *watchdog) renewed(sent time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if d := sent.Add(w.renewDeadline); !w.fired && d.After(w.deadline) {
		w.deadline, w.lastErr = d, nil
		w.timer.Reset(time.Until(d))
	}
}

// failed records the error of a failed renewal, for the loss's message.
func (w *watchdog) failed(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.lastErr = err
	}
}

// stop stops the timer; fire may still be running.
func (w *watchdog) stop() { w.timer.Stop() }
