package reflector

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// watch applies watch events to the store until a relist is needed,
// starting with w when it is not nil (the open watch of a streaming list).
// A watch that ends is started again from the last seen version, at once
// if it ended normally and after a backoff if it failed. It returns nil to
// relist at once and an error to relist after a backoff.
func (r *Reflector[T]) watch(ctx context.Context, w Watch[T]) error {
	resync := r.newResyncTimer()
	defer resync.stop()
	progressed := false // some event was applied since the store was filled
	for ctx.Err() == nil {
		start := time.Now()
		publish := true // whether events may advance LastSyncResourceVersion at once
		if w == nil {
			rv := r.LastSyncResourceVersion()
			// From "" or "0" a source may start with synthetic Added events
			// in no particular version order (b.4).
			publish = rv != "" && rv != "0"
			var err error
			w, err = r.startWatch(ctx, WatchOptions{
				ResourceVersion: rv,
				Timeout:         r.watchTimeout(),
				AllowBookmarks:  r.caps.Bookmarks,
			})
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if errors.Is(err, ErrExpired) {
					return r.expired(ctx, err, progressed)
				}
				r.report(ctx, err)
				if err := r.pause(ctx, resync); err != nil {
					return err
				}
				continue
			}
		}
		n, err := r.handle(ctx, w, start, publish, resync)
		w = nil
		progressed = progressed || n > 0
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil:
			r.log.DebugContext(ctx, "watch closed", "events", n, "resourceVersion", r.LastSyncResourceVersion())
		case errors.Is(err, ErrExpired):
			return r.expired(ctx, err, progressed)
		case errors.Is(err, ErrStore):
			return err
		default:
			r.report(ctx, err)
			if err := r.pause(ctx, resync); err != nil {
				return err
			}
		}
	}
	return nil
}

// errNoWatch reports a source whose Watch returned neither a watch nor an
// error.
var errNoWatch = errors.New("source returned a nil Watch")

// startWatch calls the source's Watch.
func (r *Reflector[T]) startWatch(ctx context.Context, opts WatchOptions) (Watch[T], error) {
	w, err := r.lw.Watch(ctx, opts)
	if err == nil && w == nil {
		err = errNoWatch
	}
	if err != nil {
		return nil, fmt.Errorf("reflector: watch from resource version %q: %w", opts.ResourceVersion, err)
	}
	return w, nil
}

// expired decides what follows an expired watch: a relist at once when the
// watch made progress, or after a backoff when it expired straight after a
// list (the source's history is too short to watch from its own lists, and
// relisting in a tight loop would not help).
func (r *Reflector[T]) expired(ctx context.Context, err error, progressed bool) error {
	if !progressed {
		return err
	}
	r.log.DebugContext(ctx, "watch expired, relisting", "err", err)
	return nil
}

// pause backs off after a failed watch, serving resync ticks meanwhile. It
// returns a store error from a resync, or nil.
func (r *Reflector[T]) pause(ctx context.Context, resync *resyncTimer) error {
	t := time.NewTimer(r.backoff.delay(time.Now(), r.rand))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			return nil
		case <-resync.C():
			if err := r.resync(ctx, resync); err != nil {
				return err
			}
		}
	}
}

// handle applies the events of w until it ends, and stops it. It returns
// the number of events applied (bookmarks included, malformed and Error
// events not) and why the watch ended: nil when the source closed it,
// ErrShortWatch when it did so within a second without applying an event,
// or the failure (an Error event, a store error, a resync error).
func (r *Reflector[T]) handle(ctx context.Context, w Watch[T], start time.Time, publish bool, resync *resyncTimer) (int, error) {
	defer w.Stop()
	n := 0
	rx := receiver[T]{events: w.Events()}
	for {
		ev, ok, got := rx.ready()
		if !got {
			if err := ctx.Err(); err != nil { // before a select that may pick an event
				return n, err
			}
			select {
			case <-ctx.Done():
				return n, ctx.Err()
			case <-resync.C():
				if err := r.resync(ctx, resync); err != nil {
					return n, err
				}
				continue
			case ev, ok = <-rx.events:
			}
		}
		if !ok {
			if n == 0 && time.Since(start) < time.Second {
				return 0, ErrShortWatch
			}
			return n, nil
		}
		rv, applied, err := r.apply(ctx, ev)
		if err != nil {
			return n, err
		}
		if !applied {
			continue
		}
		n++
		// Past the synthetic Added events, versions are in order.
		publish = publish || ev.Type != Added
		if rv != "" && publish {
			r.setLastRV(rv)
		}
	}
}

// apply applies one event to the store and returns the version it brings
// the reflector to ("" if none) and whether the event was valid. Malformed
// events are reported and skipped; the error is a failure that ends the
// watch.
func (r *Reflector[T]) apply(ctx context.Context, ev Event[T]) (string, bool, error) {
	if ev.Type == Error {
		return "", false, fmt.Errorf("reflector: watch: %w", eventError(ev))
	}
	rv, err := r.check(ctx, ev)
	if err != nil {
		return "", false, nil // reported
	}
	switch ev.Type {
	case Added:
		err = r.store.Add(ev.Object)
	case Modified:
		err = r.store.Update(ev.Object)
	case Deleted:
		err = r.store.Delete(ev.Object)
	}
	if err != nil {
		return "", false, storeError(ev.Type.String(), err)
	}
	return rv, true, nil
}

// check validates ev, which is not an Error event, and returns the version
// it brings the reflector to. A malformed event is reported and returns an
// error.
func (r *Reflector[T]) check(ctx context.Context, ev Event[T]) (string, error) {
	var err error
	rv := ev.ResourceVersion
	switch ev.Type {
	case Added, Modified, Deleted:
		var objRV string
		if objRV, err = objectVersion(ev.Object); err == nil && rv == "" {
			rv = objRV
		}
	case Bookmark:
		if rv == "" {
			err = errors.New("bookmark without a resource version")
		}
	default:
		err = errors.New("unknown event type")
	}
	if err != nil {
		err = fmt.Errorf("%w: %v event: %w", ErrMalformed, ev.Type, err)
		r.report(ctx, err)
		return "", err
	}
	return rv, nil
}

// eventError returns the failure an Error event reports.
func eventError[T any](ev Event[T]) error {
	if ev.Err == nil {
		return fmt.Errorf("%w: Error event without an error", ErrMalformed)
	}
	return ev.Err
}

// burst is how many ready events the reflector takes from a watch in a row
// before it looks at its other wake-ups (context, timers) again.
const burst = 64

// receiver takes the events of a watch without a full select while they
// come faster than the reflector applies them: a one-channel receive costs
// a fraction of a select over three.
type receiver[T any] struct {
	events <-chan Event[T]
	run    int // events taken in a row by ready
}

// ready returns the next event if one is ready and the current run is
// shorter than burst; got reports whether it did. The event and ok are
// those of a receive from events.
func (rx *receiver[T]) ready() (ev Event[T], ok, got bool) {
	if rx.run < burst {
		select {
		case ev, ok = <-rx.events:
			rx.run++
			return ev, ok, true
		default:
		}
	}
	rx.run = 0
	return ev, false, false
}
