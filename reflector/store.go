package reflector

// Store is what a Reflector writes into: usually a *deltafifo.DeltaFIFO[T],
// or any cache that wants to mirror a source.
//
// The reflector calls a Store's methods from the goroutine running
// Reflector.Run, one call at a time, so a Store used by a single reflector
// needs no locking for the reflector's sake. A method that returns an error
// has refused the change; the reflector reports the error and relists after
// backing off, so that a store that missed a change is brought back in step
// by the next Replace.
type Store[T any] interface {
	// Add records that obj was created at the source.
	Add(obj T) error
	// Update records a new state of an object the source already had.
	Update(obj T) error
	// Delete records that obj, in its last known state, was removed.
	Delete(obj T) error
	// Replace makes items the complete content of the store, as the source
	// had it at resourceVersion. The store owns items after the call: the
	// reflector does not read or modify the slice again.
	Replace(items []T, resourceVersion string) error
	// Resync asks the store to replay its content to its consumers (see
	// Options.ResyncPeriod). Stores with no consumers may do nothing.
	Resync() error
}
