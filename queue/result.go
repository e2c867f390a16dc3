package queue

import (
	"errors"
	"time"
)

// Result tells [TypedRateLimitingQueue.Run] what to do with an item whose
// processing returned no error. The zero value means the item is done:
// Run forgets its failures and does not add it again.
type Result struct {
	// RequeueAfter, if positive, makes Run forget the item's failures and
	// add it again once this delay has passed, as AddAfter does: a
	// periodic check of a state outside the cache ("look again in 30s"),
	// which is neither a failure nor logged. An Add of the item meanwhile
	// supersedes the delayed add (see the package documentation).
	RequeueAfter time.Duration
}

// ErrTerminal marks an error that retrying cannot fix, such as an invalid
// spec that only a new version of the object can correct. Run forgets an
// item whose processing returned an error matching it (errors.Is), reports
// the error and does not retry. Wrap it with [TerminalError] or with
// fmt.Errorf and %w.
var ErrTerminal = errors.New("queue: terminal error")

// TerminalError returns an error that reads as err and matches both err
// and [ErrTerminal] with errors.Is, so that [TypedRateLimitingQueue.Run]
// gives up on the item at once instead of retrying it.
// TerminalError(nil) returns ErrTerminal.
func TerminalError(err error) error {
	if err == nil {
		return ErrTerminal
	}
	return terminalError{err}
}

// terminalError is the error TerminalError returns.
type terminalError struct{ err error }

// Error returns the wrapped error's message.
func (e terminalError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error and ErrTerminal.
func (e terminalError) Unwrap() []error { return []error{e.err, ErrTerminal} }

// Outcome is what Run did with an item after processing it, as reported
// to [Metrics.Processed].
type Outcome uint8

const (
	// Succeeded: processing returned no error and no RequeueAfter; the item
	// was forgotten.
	Succeeded Outcome = iota
	// Requeued: processing returned no error and a positive RequeueAfter;
	// the item was forgotten and added again after the delay.
	Requeued
	// Failed: processing returned an error or panicked; the item will be
	// retried with backoff.
	Failed
	// Terminal: processing returned an error matching ErrTerminal; the
	// item was forgotten without a retry.
	Terminal
	// GaveUp: processing failed once more after RunOptions.MaxRetries
	// retries; the item was forgotten without a retry.
	GaveUp
)

// String returns the outcome's name in lower case, suitable as a metric
// label: "succeeded", "requeued", "failed", "terminal" or "gave_up".
func (o Outcome) String() string {
	switch o {
	case Succeeded:
		return "succeeded"
	case Requeued:
		return "requeued"
	case Failed:
		return "failed"
	case Terminal:
		return "terminal"
	case GaveUp:
		return "gave_up"
	}
	return "unknown"
}
