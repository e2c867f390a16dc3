package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// errStreamClosed reports a streaming list whose watch ended before the
// end of the initial events.
var errStreamClosed = errors.New("reflector: watch closed before the end of the initial events")

// streamList reads the source's content through a watch with
// SendInitialEvents, collecting the initial events until the Bookmark that
// marks their end. It returns the open watch, the items and the bookmark's
// version. It is used only for sources that declare StreamingList, and it
// gives up (so that the caller lists instead) when the stream fails, ends
// early, or outlasts the timeout it asked the source for.
func (r *Reflector[T]) streamList(ctx context.Context) (Watch[T], []T, string, error) {
	rv := r.LastSyncResourceVersion()
	if r.rvUnavailable {
		rv = ""
	}
	timeout := r.watchTimeout()
	r.counters.watches.Add(1)
	w, err := r.startWatch(ctx, WatchOptions{
		ResourceVersion:   rv,
		Timeout:           timeout,
		AllowBookmarks:    r.caps.Bookmarks,
		SendInitialEvents: true,
	})
	if err != nil {
		if errors.Is(err, ErrExpired) {
			r.rvUnavailable = true
		}
		return nil, nil, "", err
	}
	items, endRV, err := r.collect(ctx, w, timeout)
	if err != nil {
		w.Stop()
		if errors.Is(err, ErrExpired) {
			r.rvUnavailable = true
		}
		return nil, nil, "", err
	}
	r.rvUnavailable = false
	return w, items, endRV, nil
}

// collect gathers the initial events of w. It gives up with errStalled
// when the stream sends no event for r.streamIdle, and with an error after
// timeout, however busy the stream.
func (r *Reflector[T]) collect(ctx context.Context, w Watch[T], timeout time.Duration) ([]T, string, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	idle := newIdleCheck(wctx, r.streamIdle)
	defer idle.stop()
	var c collector[T]
	for {
		if wctx.Err() != nil { // checked first: a busy stream may never make Next wait
			if err := ctx.Err(); err != nil {
				return nil, "", err
			}
			return nil, "", fmt.Errorf("reflector: no end of the initial events after %v", timeout)
		}
		ev, err := w.Next(idle.context())
		switch {
		case err == nil:
			idle.progress()
		case wctx.Err() != nil:
			continue // see above
		case idle.context().Err() != nil:
			if idle.check() {
				return nil, "", fmt.Errorf("%w: no event for %v", errStalled, r.streamIdle)
			}
			continue
		case err == io.EOF:
			return nil, "", errStreamClosed
		default:
			return nil, "", err
		}
		switch {
		case ev.Type == Bookmark && ev.InitialEventsEnd:
			if ev.ResourceVersion == "" {
				return nil, "", fmt.Errorf("%w: end of initial events without a resource version", ErrMalformed)
			}
			return c.items, ev.ResourceVersion, nil
		}
		if _, err := r.check(ctx, ev); err != nil {
			continue // reported
		}
		switch ev.Type {
		case Added:
			c.add(ev.Object)
		case Updated:
			c.update(ev.Object)
		case Deleted:
			c.remove(ev.Object)
		}
	}
}
