package queue

import (
	"context"
	"fmt"
	"runtime/debug"
)

// call calls process, turning a panic into a *PanicError.
func call[K comparable](ctx context.Context, item K, process func(context.Context, K) (Result, error)) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = Result{}, newPanicError(v)
		}
	}()
	return process(ctx, item)
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
