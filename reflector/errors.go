package reflector

import (
	"errors"
	"fmt"
)

// Errors the reflector reports through Options.ErrorHandler, wrapped with
// details. Match them with errors.Is.
var (
	// ErrMalformed reports an event or listed item that the reflector
	// skipped because it could not be applied: a missing (nil) object, an
	// object without a name, a Bookmark without a resource version, an
	// unknown event type.
	ErrMalformed = errors.New("reflector: malformed input")
	// ErrShortWatch reports a watch that the source closed within a second
	// without sending any event; the reflector backs off before watching
	// again, so that a source that refuses watches is not hammered.
	ErrShortWatch = errors.New("reflector: watch closed within 1s without events")
	// ErrStore wraps an error returned by the Store; the reflector relists
	// after backing off.
	ErrStore = errors.New("reflector: store failed")
)

// ErrRunning is returned by [Reflector.Run] when another Run of the same
// reflector has not returned yet.
var ErrRunning = errors.New("reflector: already running")

// errNilObject and errNoName are the causes of a malformed object.
var (
	errNilObject = errors.New("missing object (nil, or its methods panic)")
	errNoName    = errors.New("object has no name")
)

// storeError wraps err, returned by the store operation op.
func storeError(op string, err error) error {
	return fmt.Errorf("%w: %s: %w", ErrStore, op, err)
}
