package memsource

import (
	"context"
	"fmt"
	"time"

	"github.com/typedcache/typedcache/reflector"
)

// Watch starts a stream of the changes after opts.ResourceVersion.
//
//   - A version the source made streams the writes after it, from the
//     history. One older than the oldest kept (or compacted away) yields a
//     stream of a single Error event wrapping reflector.ErrExpired, as the
//     API server's watch cache does; so does one newer than the current
//     version.
//   - "" and "0" first send an Added event for every current object, in key
//     order, with ResourceVersion empty (the object's own version applies),
//     then the writes after that state (Kubernetes' "get state and start at
//     most recent").
//   - opts.SendInitialEvents (with the StreamingList capability) sends the
//     current objects the same way whatever the version, then a Bookmark
//     with InitialEventsEnd set and the version of that state, then the
//     writes after it. The end bookmark is sent even without
//     AllowBookmarks.
//   - opts.AllowBookmarks (with the Bookmarks capability) adds a Bookmark
//     every Options.BookmarkInterval while the watch has caught up, with
//     the current version.
//   - opts.Timeout > 0 ends the watch after that long; zero means never.
//
// Every Added, Modified and Deleted event from the history carries the
// write's version in ResourceVersion; for Deleted it is the deletion's,
// while the object keeps the version of its last write.
//
// Watch fails at once, with a nil Watch, for a version the source cannot
// have made (ErrInvalidVersion), a context already done, or an injected
// failure. The stream ends, closing Events, when ctx ends, Stop is called,
// the timeout passes, a fault closes it, or after an Error event. Stop
// returns once the stream's goroutine has exited and Events is closed.
//
// Writers never wait for watchers: each watch reads the history at its own
// pace through a buffer of 64 events. A watch that falls more than
// Options.HistorySize writes behind gets an expiry Error event and ends;
// the API server likewise drops watchers that cannot keep up.
func (s *Source[T]) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[T], error) {
	s.stats.watches.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	from, err := s.parseVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	delay := s.faults.WatchDelay
	s.mu.Unlock()
	if err := sleep(ctx, delay, &s.stats.delayedWatches); err != nil {
		return nil, err
	}

	w := &watch[T]{
		src:       s,
		ch:        make(chan reflector.Event[T], eventBuffer),
		done:      make(chan struct{}),
		streaming: opts.SendInitialEvents && s.caps.StreamingList,
		bookmarks: opts.AllowBookmarks && s.caps.Bookmarks,
	}
	if err := s.startWatch(w, from); err != nil {
		return nil, err
	}
	if opts.Timeout > 0 {
		ctx, w.cancel = context.WithTimeout(ctx, opts.Timeout)
	} else {
		ctx, w.cancel = context.WithCancel(ctx)
	}
	s.stats.activeWatches.Add(1)
	go w.run(ctx)
	return w, nil
}

// startWatch applies the watch faults and sets where w starts: an error to
// report, the snapshot of its initial events, or the version it follows
// the history from.
func (s *Source[T]) startWatch(w *watch[T], from uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.faults.takeWatchFailure(); err != nil {
		s.stats.failedWatches.Add(1)
		return err
	}
	w.limit = s.faults.CloseWatchesAfter
	switch {
	case s.faults.takeExpiry():
		s.stats.injectedExpiries.Add(1)
		w.err = fmt.Errorf("memsource: watch from version %s: injected expiry: %w",
			s.codec.format(from), reflector.ErrExpired)
	case from > s.version:
		s.stats.expired.Add(1)
		w.err = fmt.Errorf("memsource: watch from version %s, newer than the current %s: %w",
			s.codec.format(from), s.codec.format(s.version), reflector.ErrExpired)
	case from == 0 || w.streaming:
		w.initial = s.currentLocked()
		w.cursor = w.initial.version
	default:
		w.cursor = from
	}
	if s.closeAll == nil {
		s.closeAll = make(chan struct{})
	}
	w.closeAll = s.closeAll
	return nil
}

// watch is one running stream. Its goroutine, started by Watch, owns every
// field but ch, done and cancel, and exits when the stream ends.
type watch[T Object] struct {
	src      *Source[T]
	ch       chan reflector.Event[T]
	done     chan struct{}      // closed after ch, when the goroutine exits
	cancel   context.CancelFunc // ends the goroutine's context
	closeAll <-chan struct{}    // the source's CloseWatches signal

	streaming bool         // end the initial events with a bookmark
	bookmarks bool         // send periodic bookmarks
	err       error        // if set, the stream is this one Error event
	initial   *snapshot[T] // objects to send as Added first, or nil
	cursor    uint64       // the version everything up to which is sent
	sent      int          // object events sent
	limit     int          // Faults.CloseWatchesAfter, read at each fetch
}

// Events returns the channel the stream's events arrive on.
func (w *watch[T]) Events() <-chan reflector.Event[T] { return w.ch }

// Stop ends the stream and returns once its goroutine has exited and
// Events is closed. It is idempotent.
func (w *watch[T]) Stop() {
	w.cancel()
	<-w.done
}

// run sends the stream's events until it ends.
func (w *watch[T]) run(ctx context.Context) {
	defer func() {
		w.src.stats.activeWatches.Add(-1)
		close(w.ch)
		close(w.done)
	}()
	if w.err != nil {
		w.send(ctx, reflector.Event[T]{Type: reflector.Error, Err: w.err})
		return
	}
	if w.initial != nil {
		for _, obj := range w.initial.items {
			if !w.sendObject(ctx, reflector.Added, obj, "") {
				return
			}
		}
		w.initial = nil
		if w.streaming && !w.sendBookmark(ctx, true) {
			return
		}
	}
	var tick <-chan time.Time
	if w.bookmarks {
		t := time.NewTicker(w.src.bookmarkInterval)
		defer t.Stop()
		tick = t.C
	}
	buf := make([]record[T], 0, eventBuffer)
	bookmarkDue := false
	for {
		batch, wake, err := w.fetch(buf[:0])
		if err != nil {
			w.send(ctx, reflector.Event[T]{Type: reflector.Error, Err: err})
			return
		}
		for _, r := range batch {
			if !w.sendObject(ctx, r.typ, r.obj, r.version) {
				return
			}
			w.cursor++
		}
		clear(batch)
		if len(batch) > 0 {
			continue
		}
		if bookmarkDue {
			if !w.sendBookmark(ctx, false) {
				return
			}
			bookmarkDue = false
		}
		select {
		case <-wake:
		case <-tick:
			bookmarkDue = true
		case <-ctx.Done():
			return
		case <-w.closeAll:
			w.src.stats.closedWatches.Add(1)
			return
		}
	}
}

// fetch copies into buf the records after the cursor, at most a buffer's
// worth. When there are none, it returns a channel closed at the next write
// instead; when the history no longer reaches back to the cursor, an
// expiry error.
func (w *watch[T]) fetch(buf []record[T]) ([]record[T], <-chan struct{}, error) {
	s := w.src
	s.mu.Lock()
	defer s.mu.Unlock()
	w.limit = s.faults.CloseWatchesAfter
	if w.cursor < s.oldest {
		s.stats.expired.Add(1)
		return nil, nil, fmt.Errorf("memsource: watch at version %s, older than the oldest kept %s: %w",
			s.codec.format(w.cursor), s.codec.format(s.oldest), reflector.ErrExpired)
	}
	n := min(s.version-w.cursor, uint64(cap(buf)))
	if n == 0 {
		if s.wake == nil {
			s.wake = make(chan struct{})
		}
		return buf, s.wake, nil
	}
	first := int(w.cursor - s.oldest)
	for i := range int(n) {
		buf = append(buf, s.history.At(first+i))
	}
	return buf, nil, nil
}

// sendObject sends one Added, Modified or Deleted event and reports
// whether the stream goes on: false when it ended or the CloseWatchesAfter
// fault fired.
func (w *watch[T]) sendObject(ctx context.Context, typ reflector.EventType, obj T, version string) bool {
	ev := reflector.Event[T]{Type: typ, Object: w.src.out(obj), ResourceVersion: version}
	if !w.send(ctx, ev) {
		return false
	}
	w.src.stats.events.Add(1)
	w.sent++
	if w.limit > 0 && w.sent >= w.limit {
		w.src.stats.closedWatches.Add(1)
		return false
	}
	return true
}

// sendBookmark sends a bookmark at the cursor and reports whether the
// stream goes on.
func (w *watch[T]) sendBookmark(ctx context.Context, initialEventsEnd bool) bool {
	ev := reflector.Event[T]{
		Type:             reflector.Bookmark,
		ResourceVersion:  w.src.codec.format(w.cursor),
		InitialEventsEnd: initialEventsEnd,
	}
	if !w.send(ctx, ev) {
		return false
	}
	w.src.stats.bookmarks.Add(1)
	return true
}

// send delivers ev unless the stream ends first, and reports whether it
// did.
func (w *watch[T]) send(ctx context.Context, ev reflector.Event[T]) bool {
	select {
	case w.ch <- ev:
		return true
	case <-ctx.Done():
		return false
	case <-w.closeAll:
		w.src.stats.closedWatches.Add(1)
		return false
	}
}
