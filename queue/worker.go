package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// Run runs the worker loop every controller writes, in workers goroutines:
// each takes an item with Get, calls process with it, then calls Forget if
// process returned nil, or AddRateLimited if it returned an error or
// panicked, and always Done. Errors and recovered panics (as a
// [*PanicError]) are logged through [Options.Logger].
//
// Run returns once every worker has returned: when ctx ends (process sees
// the same ctx) it returns ctx.Err(), and when the queue has shut down and
// has nothing left to hand out it returns nil. Run does not shut the queue
// down; call ShutDown or ShutDownWithDrain for that. An item whose process
// call fails because ctx ended is retried with backoff like any other
// failure, so it is not lost while the queue runs. Run returns an error at
// once if workers < 1 or process is nil.
func (q *TypedRateLimitingQueue[K]) Run(ctx context.Context, workers int, process func(context.Context, K) error) error {
	if workers < 1 {
		return fmt.Errorf("queue: Run needs at least 1 worker, got %d", workers)
	}
	if process == nil {
		return errors.New("queue: Run needs a process function, got nil")
	}
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, q.wake)()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for q.processNext(ctx, process) {
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// processNext handles one item and reports whether the worker should go on.
func (q *TypedRateLimitingQueue[K]) processNext(ctx context.Context, process func(context.Context, K) error) bool {
	item, err := q.get(ctx, true)
	if err != nil {
		return false
	}
	defer q.Done(item)
	if err := call(ctx, item, process); err != nil {
		q.report(item, err)
		q.AddRateLimited(item)
		return true
	}
	q.Forget(item)
	return true
}

// call calls process, turning a panic into a *PanicError.
func call[K comparable](ctx context.Context, item K, process func(context.Context, K) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = newPanicError(v)
		}
	}()
	return process(ctx, item)
}

func (q *TypedRateLimitingQueue[K]) report(item K, err error) {
	msg := "queue: processing failed, retrying"
	args := []any{"queue", q.name, "item", item, "error", err}
	if p, ok := errors.AsType[*PanicError](err); ok {
		msg = "queue: processing panicked, retrying"
		args = append(args, "stack", string(p.Stack))
	}
	q.logger.Error(msg, args...)
}

// PanicError is the error a worker started by Run reports when process
// panics.
type PanicError struct {
	// Stack is the stack trace of the panicking goroutine.
	Stack []byte

	msg string
	err error // the panic value, if it is an error
}

func newPanicError(v any) *PanicError {
	err, _ := v.(error)
	return &PanicError{Stack: debug.Stack(), msg: fmt.Sprint(v), err: err}
}

// Error returns "queue: panic: " followed by the panic value.
func (e *PanicError) Error() string { return "queue: panic: " + e.msg }

// Unwrap returns the panic value if it is an error, and nil otherwise.
func (e *PanicError) Unwrap() error { return e.err }
