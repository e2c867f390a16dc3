package memsource

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/typedcache/typedcache/reflector"
)

// Watch starts a stream of the changes after opts.ResourceVersion.
//
//   - A version the source made streams the writes after it, from the
//     history. One older than the oldest kept (or compacted away) makes the
//     stream's first Next fail with an error wrapping reflector.ErrExpired,
//     as the API server's watch cache does; so does one newer than the
//     current version.
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
// Every Added, Updated and Deleted event from the history carries the
// write's version in ResourceVersion; for Deleted it is the deletion's,
// while the object keeps the version of its last write.
//
// Watch fails at once, with a nil Watch, for a version the source cannot
// have made (ErrInvalidVersion), a context already done, or an injected
// failure. The stream ends (Next returns io.EOF) when ctx ends, Stop is
// called, the timeout passes, or a fault closes it; it fails when its
// version expires.
//
// A watch has no goroutine: Next reads the history on the caller's
// goroutine, up to 64 writes per lock acquisition, and waits for the next
// write when it has caught up. Writers never wait for watchers. A watch
// whose reader falls more than Options.HistorySize writes behind fails
// with an expiry; the API server likewise drops watchers that cannot keep
// up.
func (s *Source[T]) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[T], error) {
	s.stats.watches.Add(1)
	if s.zero() {
		return nil, errZero
	}
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
		streaming: opts.SendInitialEvents && s.caps.StreamingList,
		bookmarks: opts.AllowBookmarks && s.caps.Bookmarks,
	}
	if err := s.startWatch(w, from); err != nil {
		return nil, err
	}
	if opts.Timeout > 0 {
		w.ctx, w.cancel = context.WithTimeout(ctx, opts.Timeout)
	} else {
		w.ctx, w.cancel = context.WithCancel(ctx)
	}
	if w.bookmarks {
		w.bookmarkAt = time.Now().Add(s.bookmarkInterval)
	}
	s.stats.activeWatches.Add(1)
	// The stream stops being active when it ends: on Stop, when Next ends
	// it, or when its context ends (at the timeout or with ctx).
	context.AfterFunc(w.ctx, w.release)
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
	if w.streaming {
		if err := s.faults.takeListFailure(); err != nil {
			s.stats.failedLists.Add(1)
			return err
		}
	}
	w.limit = s.faults.CloseWatchesAfter
	switch {
	case s.faults.takeExpiry():
		s.stats.injectedExpiries.Add(1)
		w.failure = fmt.Errorf("memsource: watch from version %s: injected expiry: %w",
			s.codec.format(from), reflector.ErrExpired)
	case from > s.version:
		s.stats.expired.Add(1)
		w.failure = fmt.Errorf("memsource: watch from version %s, newer than the current %s: %w",
			s.codec.format(from), s.codec.format(s.version), reflector.ErrExpired)
	case from == 0 || w.streaming:
		snap := s.currentLocked()
		w.initial, w.cursor = snap.items, snap.version
		w.endInitial = w.streaming
	default:
		w.cursor = from
	}
	if s.closeAll == nil {
		s.closeAll = make(chan struct{})
	}
	w.closeAll = s.closeAll
	return nil
}

// watch is one stream. Its fields belong to the goroutine calling Next, but
// ctx, cancel and released, which Stop uses too.
type watch[T Object] struct {
	src      *Source[T]
	ctx      context.Context    // ends with the stream
	cancel   context.CancelFunc // ends ctx
	closeAll <-chan struct{}    // the source's CloseWatches signal
	released sync.Once          // the stream no longer counts as active

	// failure, if set, is the stream's whole content: the first Next fails
	// with it.
	failure error
	// end, once set, is what every later Next returns: io.EOF or the
	// failure that ended the stream.
	end error

	streaming  bool        // the watch began with a streaming initial list
	initial    []T         // the current objects to send as Added; shared, read-only
	sentInit   int         // initial[:sentInit] have been sent
	endInitial bool        // send the end-of-initial-events bookmark next
	bookmarks  bool        // send periodic bookmarks
	bookmarkAt time.Time   // when the next periodic bookmark is due
	timer      *time.Timer // wakes a wait for bookmarkAt; nil until needed
	cursor     uint64      // the version everything up to which is sent
	batch      []record[T] // records fetched from the history, not yet sent
	next       int         // batch[next] is the next record to send
	sent       int         // object events sent
	limit      int         // Faults.CloseWatchesAfter, read at each fetch
}

// Stop ends the stream; a Next waiting meanwhile returns io.EOF. It is
// idempotent.
func (w *watch[T]) Stop() {
	w.cancel()
	w.release()
}

// release marks the stream as no longer active, once.
func (w *watch[T]) release() {
	w.released.Do(func() { w.src.stats.activeWatches.Add(-1) })
}

// Next returns the stream's next event, waiting for the next write when the
// watch has caught up with the history. See reflector.Watch.
func (w *watch[T]) Next(ctx context.Context) (reflector.Event[T], error) {
	if w.failure != nil {
		w.finish(w.failure)
		w.failure = nil
	}
	for {
		if err := w.stopped(); err != nil {
			return reflector.Event[T]{}, err
		}
		if ev, ok := w.ready(); ok {
			return ev, nil
		}
		if err := w.fetch(); err != nil {
			w.finish(err)
			continue
		}
		if w.next < len(w.batch) {
			continue
		}
		if w.bookmarks && !time.Now().Before(w.bookmarkAt) {
			w.bookmarkAt = time.Now().Add(w.src.bookmarkInterval)
			return w.bookmark(false), nil
		}
		if err := w.wait(ctx); err != nil {
			return reflector.Event[T]{}, err
		}
	}
}

// stopped returns the error that ended the stream, ending it first if its
// context ended or CloseWatches was called; nil while it goes on.
func (w *watch[T]) stopped() error {
	if w.end == nil {
		select {
		case <-w.ctx.Done():
			w.finish(io.EOF)
		case <-w.closeAll:
			w.closeByFault()
		default:
		}
	}
	return w.end
}

// ready returns the next event that needs no wait: an initial Added event,
// the end-of-initial-events bookmark, or a fetched write.
func (w *watch[T]) ready() (reflector.Event[T], bool) {
	switch {
	case w.sentInit < len(w.initial):
		obj := w.initial[w.sentInit]
		w.sentInit++
		if w.sentInit == len(w.initial) {
			w.initial, w.sentInit = nil, 0
		}
		return w.object(reflector.Added, obj, ""), true
	case w.endInitial:
		w.endInitial = false
		return w.bookmark(true), true
	case w.next < len(w.batch):
		r := w.batch[w.next]
		w.batch[w.next] = record[T]{}
		w.next++
		w.cursor++
		return w.object(r.typ, r.obj, r.version), true
	}
	return reflector.Event[T]{}, false
}

// object returns an Added, Updated or Deleted event, counting it, and
// ends the stream after it when the CloseWatchesAfter fault fires.
func (w *watch[T]) object(typ reflector.EventType, obj T, version string) reflector.Event[T] {
	w.src.stats.events.Add(1)
	w.sent++
	if w.limit > 0 && w.sent >= w.limit {
		w.closeByFault()
	}
	return reflector.Event[T]{Type: typ, Object: w.src.out(obj), ResourceVersion: version}
}

// bookmark returns a bookmark at the cursor, counting it.
func (w *watch[T]) bookmark(initialEventsEnd bool) reflector.Event[T] {
	w.src.stats.bookmarks.Add(1)
	return reflector.Event[T]{
		Type:             reflector.Bookmark,
		ResourceVersion:  w.src.codec.format(w.cursor),
		InitialEventsEnd: initialEventsEnd,
	}
}

// fetch copies the records after the cursor into w.batch, at most a
// batch's worth, or returns an expiry error when the history no longer
// reaches back to the cursor.
func (w *watch[T]) fetch() error {
	s := w.src
	s.mu.Lock()
	defer s.mu.Unlock()
	w.limit = s.faults.CloseWatchesAfter
	if w.cursor < s.oldest {
		s.stats.expired.Add(1)
		return fmt.Errorf("memsource: watch at version %s, older than the oldest kept %s: %w",
			s.codec.format(w.cursor), s.codec.format(s.oldest), reflector.ErrExpired)
	}
	n := int(min(s.version-w.cursor, watchBatch))
	if w.batch == nil && n > 0 {
		w.batch = make([]record[T], 0, watchBatch)
	}
	w.batch, w.next = w.batch[:0], 0
	first := int(w.cursor - s.oldest)
	for i := range n {
		w.batch = append(w.batch, s.history.At(first+i))
	}
	return nil
}

// wait blocks until a write after the cursor, a due bookmark, or the end of
// the stream, and returns ctx.Err() if ctx ends first.
func (w *watch[T]) wait(ctx context.Context) error {
	s := w.src
	s.mu.Lock()
	if s.version > w.cursor {
		s.mu.Unlock()
		return nil
	}
	if s.wake == nil {
		s.wake = make(chan struct{})
	}
	wake := s.wake
	s.mu.Unlock()
	var tick <-chan time.Time
	if w.bookmarks {
		if w.timer == nil {
			w.timer = time.NewTimer(time.Until(w.bookmarkAt))
		} else {
			w.timer.Reset(time.Until(w.bookmarkAt))
		}
		defer w.timer.Stop()
		tick = w.timer.C
	}
	select {
	case <-wake:
	case <-tick:
	case <-w.ctx.Done():
	case <-w.closeAll:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// closeByFault ends the stream for Faults.CloseWatchesAfter or
// CloseWatches.
func (w *watch[T]) closeByFault() {
	w.src.stats.closedWatches.Add(1)
	w.finish(io.EOF)
}

// finish ends the stream with err, which every later Next returns.
func (w *watch[T]) finish(err error) {
	if w.end != nil {
		return
	}
	w.end = err
	w.initial, w.sentInit, w.endInitial = nil, 0, false
	clear(w.batch)
	w.batch, w.next = nil, 0
	w.cancel()
	w.release()
}
