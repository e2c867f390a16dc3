package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// relist is how a watch phase ends: the reflector lists again, at once or
// after reporting cause and backing off.
type relist struct {
	afterBackoff bool
	cause        error // reported before the backoff; nil when at once
}

// relistNow lists again at once: the watch expired after making progress,
// or the reflector is stopping.
var relistNow = relist{}

// relistAfter reports cause, backs off, then lists again.
func relistAfter(cause error) relist { return relist{afterBackoff: true, cause: cause} }

// watch applies watch events to the store until a relist is needed,
// starting with w when it is not nil (the open watch of a streaming list).
// A watch that ends is started again from the last seen version: at once
// if it ended normally, after a backoff if it failed.
func (r *Reflector[T]) watch(ctx context.Context, w Watch[T]) relist {
	clock := r.newResyncClock(ctx)
	defer clock.stop()
	progressed := false // some event was applied since the store was filled
	for ctx.Err() == nil {
		start := time.Now()
		// A watch from "" or "0" may start with synthetic Added events in no
		// particular version order: they do not advance the version.
		rv := r.LastSyncResourceVersion()
		ordered := rv != "" && rv != "0"
		if w == nil {
			var err error
			r.counters.watches.Add(1)
			w, err = r.startWatch(ctx, WatchOptions{
				ResourceVersion: rv,
				Timeout:         r.watchTimeout(),
				AllowBookmarks:  r.caps.Bookmarks,
			})
			if err != nil {
				if ctx.Err() != nil {
					return relistNow
				}
				r.counters.countWatchEnd(err)
				if errors.Is(err, ErrExpired) {
					return r.expired(ctx, err, progressed)
				}
				r.report(ctx, err)
				if err := r.pause(ctx, clock); err != nil {
					return relistAfter(err)
				}
				continue
			}
		} else {
			ordered = true // a streaming list's watch: its versions are in order
		}
		n, err := r.handle(ctx, w, start, ordered, clock)
		w = nil
		progressed = progressed || n > 0
		if n > 0 || time.Since(start) >= healthyWatch {
			r.backoff.healthy()
		}
		if ctx.Err() != nil {
			return relistNow
		}
		r.counters.countWatchEnd(err)
		switch {
		case err == nil:
			r.log.DebugContext(ctx, "watch closed", "events", n, "resourceVersion", r.LastSyncResourceVersion())
		case errors.Is(err, ErrExpired):
			return r.expired(ctx, err, progressed)
		case errors.Is(err, ErrStore):
			return relistAfter(err)
		default:
			r.report(ctx, err)
			if err := r.pause(ctx, clock); err != nil {
				return relistAfter(err)
			}
		}
	}
	return relistNow
}

// errNoWatch reports a source whose Watch returned neither a watch nor an
// error.
var errNoWatch = errors.New("source returned a nil Watch")

// startWatch calls the source's Watch.
func (r *Reflector[T]) startWatch(ctx context.Context, opts WatchOptions) (Watch[T], error) {
	opts.ReadOnly = r.readOnly
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
func (r *Reflector[T]) expired(ctx context.Context, err error, progressed bool) relist {
	if !progressed {
		return relistAfter(err)
	}
	r.log.DebugContext(ctx, "watch expired, relisting", "err", err)
	return relistNow
}

// pause backs off after a failed watch, serving resyncs meanwhile. It
// returns a store error from a resync, or nil.
func (r *Reflector[T]) pause(ctx context.Context, clock *resyncClock) error {
	t := time.NewTimer(r.backoff.delay(time.Now(), r.rand))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			return nil
		case <-clock.due():
			if err := r.resync(ctx, clock); err != nil {
				return err
			}
		}
	}
}

// handle applies the events of w until it ends, and stops it. It returns
// the number of events applied (bookmarks included, malformed events not)
// and why the watch ended: nil when the source closed it, ErrShortWatch
// when it did so within a second without applying an event, or the
// failure (of the stream, the store, or a resync). Events advance
// LastSyncResourceVersion once ordered, which the first event that is not
// an Added makes true.
func (r *Reflector[T]) handle(ctx context.Context, w Watch[T], start time.Time, ordered bool, clock *resyncClock) (int, error) {
	defer w.Stop()
	n := 0
	for {
		// The clock's context ends when ctx does and when a resync is due;
		// it is checked after every event, so that neither waits behind a
		// stream that never pauses.
		wctx := clock.context()
		if wctx.Err() != nil {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := r.resync(ctx, clock); err != nil {
				return n, err
			}
			continue
		}
		ev, err := w.Next(wctx)
		if err != nil {
			if wctx.Err() != nil {
				continue // ctx ended or a resync is due: see above
			}
			if err == io.EOF {
				if n == 0 && time.Since(start) < healthyWatch {
					return 0, ErrShortWatch
				}
				return n, nil
			}
			return n, fmt.Errorf("reflector: watch: %w", err)
		}
		rv, applied, err := r.apply(ctx, ev)
		if err != nil {
			return n, err
		}
		if !applied {
			continue
		}
		r.counters.events[ev.Type].Add(1)
		n++
		ordered = ordered || ev.Type != Added
		if rv != "" && ordered {
			r.setLastRV(rv)
		}
	}
}

// apply applies one event to the store and returns the version it brings
// the reflector to ("" if none) and whether the event was valid. Malformed
// events are reported and skipped; the error is a store failure, which
// ends the watch.
func (r *Reflector[T]) apply(ctx context.Context, ev Event[T]) (string, bool, error) {
	rv, err := r.check(ctx, ev)
	if err != nil {
		return "", false, nil // reported
	}
	switch ev.Type {
	case Added:
		err = r.store.Add(ev.Object)
	case Updated:
		err = r.store.Update(ev.Object)
	case Deleted:
		err = r.store.Delete(ev.Object)
	}
	if err != nil {
		return "", false, storeError(ev.Type.String(), err)
	}
	return rv, true, nil
}

// check validates ev and returns the version it brings the reflector to. A
// malformed event is reported and returns an error.
func (r *Reflector[T]) check(ctx context.Context, ev Event[T]) (string, error) {
	var err error
	rv := ev.ResourceVersion
	switch ev.Type {
	case Added, Updated, Deleted:
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
