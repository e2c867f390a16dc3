package informer

import (
	"context"

	"github.com/typedcache/typedcache/internal/fanout"
	"github.com/typedcache/typedcache/keys"
)

// Registration is the handle of one handler added to an Informer. It
// reports whether the handler has received the initial list, exposes the
// handler's buffer statistics, and is what RemoveEventHandler takes.
//
// A Registration is safe for simultaneous use by multiple goroutines. Only
// AddEventHandler makes one; a zero Registration is the handle of no
// handler: it never syncs (WaitForSync returns an error that says so), its
// Done channel is closed, and its Stats are zero.
type Registration[T keys.Object] struct {
	l    *fanout.Listener[T]
	name string
	// owner is the informer that created the registration.
	owner *Informer[T]
	// stopped is closed when the informer stops; a registration that has
	// not synced by then never will.
	stopped <-chan struct{}
}

// Name returns the handler's name (HandlerOptions.Name or a generated
// one).
func (r *Registration[T]) Name() string { return r.name }

// HasSynced reports whether the informer has synced and the handler has
// returned from OnAdd for every object of the initial list (or, for a
// handler added after the informer synced, for every object that was
// cached when it was added).
func (r *Registration[T]) HasSynced() bool {
	if r.l == nil {
		return false
	}
	select {
	case <-r.l.Synced():
		return true
	default:
		return false
	}
}

// WaitForSync blocks until HasSynced reports true, and returns nil. It
// returns ctx.Err() if ctx ends first, and ErrStopped if the informer
// stops or the handler is removed first.
func (r *Registration[T]) WaitForSync(ctx context.Context) error {
	if r.l == nil {
		return errZeroRegistration
	}
	return waitSynced(ctx, r.l.Synced(), r.stopped, r.l.Done())
}

// Done returns a channel that is closed once the handler will never be
// called again: after RemoveEventHandler or the end of Run, and once the
// handler call in progress, if any, has returned. Pending notifications
// are dropped, as in client-go. RemoveEventHandler followed by waiting on
// Done is client-go's ShutDownEventHandler; do not wait from inside the
// handler itself.
func (r *Registration[T]) Done() <-chan struct{} {
	if r.l == nil {
		return closedCh
	}
	return r.l.Done()
}

// Stats returns a snapshot of the handler's buffer and delivery counters.
// It takes the handler's buffer lock briefly and does not allocate.
func (r *Registration[T]) Stats() HandlerStats {
	if r.l == nil {
		return HandlerStats{}
	}
	return HandlerStats(r.l.Stats())
}

// waitSynced waits for synced to be closed. It fails with ctx.Err() when
// ctx ends first, and with ErrStopped when a or b (either may be nil) is
// closed first.
func waitSynced(ctx context.Context, synced, a, b <-chan struct{}) error {
	select {
	case <-synced:
		return nil
	case <-ctx.Done():
	case <-a:
	case <-b:
	}
	// Prefer success when both happened.
	select {
	case <-synced:
		return nil
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return ErrStopped
}
