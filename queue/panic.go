package queue

import (
	"context"
	"fmt"
	"runtime/debug"
)

// call calls process, turning a panic into a *ProcessPanicError.
func call[K comparable](ctx context.Context, item K, process func(context.Context, K) (Result, error)) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = Result{}, newProcessPanicError(v)
		}
	}()
	return process(ctx, item)
}

// ProcessPanicError describes a panic recovered from the process function
// of [TypedRateLimitingQueue.Run]. Run logs it with its stack and retries
// the item like any other failure. Its counterpart for informer event
// handlers is informer.HandlerPanicError.
type ProcessPanicError struct {
	// Value is the panic value, formatted with fmt.Sprint.
	Value string
	// Stack is the stack trace of the panicking goroutine.
	Stack []byte

	err error // the panic value, if it is an error
}

func newProcessPanicError(v any) *ProcessPanicError {
	err, _ := v.(error)
	return &ProcessPanicError{Value: fmt.Sprint(v), Stack: debug.Stack(), err: err}
}

// Error returns "queue: process panicked: " followed by the panic value,
// without the stack.
func (e *ProcessPanicError) Error() string { return "queue: process panicked: " + e.Value }

// Unwrap returns the panic value if it is an error, and nil otherwise.
func (e *ProcessPanicError) Unwrap() error { return e.err }
