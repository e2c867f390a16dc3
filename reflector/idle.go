package reflector

import (
	"context"
	"errors"
	"time"
)

// idleChecks is how many times per idle limit an idleCheck looks for
// progress: a stall is noticed between one limit and a quarter more after
// the last event.
const idleChecks = 4

// errStalled reports a streaming list whose source sent no event for the
// idle limit before the end of its initial events.
var errStalled = errors.New("reflector: streaming list stalled before the end of the initial events")

// idleCheck tells a stream that is making progress from one that has
// stalled without reading the clock for every event: the reader waits for
// each event under a context that ends every limit/idleChecks, counts the
// events it gets, and the stream has stalled once idleChecks such periods
// in a row saw none. It is used by one goroutine.
type idleCheck struct {
	parent context.Context
	period time.Duration // limit/idleChecks; 0 disables the check
	ctx    context.Context
	cancel context.CancelFunc
	events int // events counted so far
	seen   int // events at the last check
	quiet  int // checks in a row without an event
}

// newIdleCheck starts watching for a stall of limit under parent; a limit
// of zero or less never stalls.
func newIdleCheck(parent context.Context, limit time.Duration) *idleCheck {
	c := &idleCheck{parent: parent, ctx: parent, cancel: func() {}}
	if limit > 0 {
		c.period = max(limit/idleChecks, 1)
		c.ctx, c.cancel = context.WithTimeout(parent, c.period)
	}
	return c
}

// context returns the context to wait for the next event under: it ends
// with parent, or when the next check is due.
func (c *idleCheck) context() context.Context { return c.ctx }

// progress counts one event.
func (c *idleCheck) progress() { c.events++ }

// check is called when context() has ended and parent has not: it
// reports whether the stream has stalled, and otherwise starts the next
// period.
func (c *idleCheck) check() bool {
	if c.events != c.seen {
		c.seen, c.quiet = c.events, 0
	} else {
		c.quiet++
	}
	if c.quiet >= idleChecks {
		return true
	}
	c.cancel()
	c.ctx, c.cancel = context.WithTimeout(c.parent, c.period)
	return false
}

// stop releases the current period's timer.
func (c *idleCheck) stop() { c.cancel() }
