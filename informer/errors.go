package informer

import (
	"errors"
	"fmt"
)

var (
	// ErrStopped reports a call that needs a running or not yet started
	// informer, made after it stopped: AddEventHandler after Run returned
	// or its context ended, or a wait for a sync that can no longer
	// happen.
	ErrStopped = errors.New("informer: stopped")
	// ErrStarted reports a second call of Run, or a change that is only
	// allowed before Run.
	ErrStarted = errors.New("informer: already started")
	// ErrForeignRegistration reports a Registration passed to an informer
	// that did not create it.
	ErrForeignRegistration = errors.New("informer: registration belongs to another informer")
	// ErrFactoryShutDown reports a call on an informer that a Factory
	// never started because it had shut down: one that For created after
	// Shutdown, or before Shutdown but after the last Start. Such an
	// informer can never sync; its Run, AddEventHandler, AddIndexers and
	// WaitForSync return this error at once. It wraps ErrStopped.
	ErrFactoryShutDown = fmt.Errorf("%w: factory shut down", ErrStopped)
	// ErrFactoryNotStarted reports a Factory.WaitForSync on a factory that
	// has started no informer yet, so that nothing could sync: Start it
	// after creating its informers with For, then wait.
	ErrFactoryNotStarted = errors.New("informer: factory started no informer; call Start after For, before WaitForSync")
)

// HandlerPanicError describes a panic recovered from an event handler.
// The informer skips the notification that caused it and goes on with the
// next one; it reports the panic to Options.ErrorHandler. Its counterpart
// for the work queue's process function is queue.ProcessPanicError.
type HandlerPanicError struct {
	// Handler is the name of the registration whose handler panicked.
	Handler string
	// Method is the handler method that panicked: "OnAdd", "OnUpdate" or
	// "OnDelete".
	Method string
	// Key is the cache key of the object the notification was about.
	Key string
	// Value is the panic value, formatted with fmt.Sprint.
	Value string
	// Stack is the stack trace of the panicking goroutine.
	Stack []byte
}

// Error returns a one-line description of the panic, without the stack.
func (e *HandlerPanicError) Error() string {
	return fmt.Sprintf("informer: handler %s panicked in %s for key %q: %s", e.Handler, e.Method, e.Key, e.Value)
}
