// Package reflector keeps a Store in step with a source of objects: it
// lists the source, replaces the store's content with the result, then
// applies the source's watch events to the store one by one, relisting,
// re-watching and backing off as needed, until its context ends.
//
// A source is a ListerWatcher[T]. It declares in Capabilities which
// optional features it implements (paginated lists, bookmarks, streaming
// lists), and the reflector uses only those: a source without a feature is
// never asked for it and never waited on for it. The ListWatch adapter
// turns two functions into a ListerWatcher; package memsource is a complete
// in-memory source. The Store is usually a deltafifo.DeltaFIFO[T] feeding
// an informer.
//
// # Semantics
//
// Filling the store. The first list asks for version "0" (any state the
// source has at hand); later lists ask for the last version seen, so the
// store never goes back in time; after a list at a version fails with
// ErrExpired, the reflector lists at once again at "" (the latest state),
// and keeps asking for "" until a list succeeds. A source with Pagination
// is listed in pages of Options.PageSize (default 500), following
// client-go's rule that a relist at a specific version is not paginated
// unless the first list came back in pages; an expired continue token falls
// back to one unpaginated list. The pages are joined and handed to the
// store in one Replace, with the version of the first page.
//
// A source with StreamingList is read instead through a watch with
// SendInitialEvents: its initial events are collected in a slice (a
// Updated or Deleted among them edits the slice) and handed to one Replace
// when the Bookmark with InitialEventsEnd arrives; the same watch then goes
// on as a normal watch. If the stream fails, ends early, or does not end
// its initial events within the timeout the reflector asked for, the
// reflector reports it and lists instead, in the same attempt. A stream
// that sends no event at all for Options.StreamingListIdleTimeout (5s by
// default) before its end is a source that cannot stream, whatever it
// declares (client-go's fake clients, servers that ignore the request):
// the reflector logs one warning, lists instead, and never streams again.
// Every event counts as progress, so a long initial list is never cut
// while it keeps arriving. Options.DisableStreamingList turns streaming
// off.
//
// Watching. After the store is filled, the reflector watches from the
// list's version, asking for a random timeout in [5min, 10min] (see
// Options.MinWatchTimeout; the source ends the watch) and for bookmarks
// when the source has them.
// Added, Updated and Deleted events become Store.Add, Update and Delete; a
// Bookmark only advances LastSyncResourceVersion. A watch that the source
// ends is started again at once from the last version seen; one that ended
// within a second without applying any event counts as a failure
// (ErrShortWatch).
// A watch that starts from "" or "0" (a source whose lists carry no
// version) does not advance LastSyncResourceVersion on its first, possibly
// unordered, Added events, only from the first other event on.
//
// Failures. ErrExpired from Watch or from the stream's Next ends the watch
// and the reflector relists from the last version seen: at once if some
// event (a bookmark included) was applied since the store was filled,
// otherwise after a backoff (the source forgot the version as soon as it
// was listed, and relisting in a tight loop would not help). Any other
// failure is reported to Options.ErrorHandler and retried after a backoff:
// a failed list is retried as a list, a failed watch as a watch from the
// last version seen.
//
// Backoff. The delays grow with the length of the outage, not with the
// number of failures, and an outage ends as soon as the source is healthy
// again: a watch delivered an event or stayed open for a second (a
// successful list alone does not count, or a source that expires every
// watch right after a list would be relisted at the shortest delay
// forever). Each retry waits Backoff.Factor-1 (10%) of the outage so far,
// at least Backoff.Initial (0.8s) and at most Backoff.Max (30s), stretched
// by up to Backoff.Jitter (100%) of itself: retries come every 0.8 to 1.6
// seconds through the first 8 seconds of an outage, then exponentially
// spaced. So the reflector is back within 1.6 seconds of the end of an
// outage of up to 8 seconds (an API server restart, say), within 2
// seconds of one of 10, within a fifth of a longer one, and outages in a
// row do not lengthen each other's delays; a source that keeps failing is
// retried about 7 times in its first 8 seconds and ever more rarely after
// that, jittered, until it is retried every 30 to 60 seconds from its
// fifth minute on.
//
// Malformed input never stops the stream or panics: an event or listed item
// whose object is missing (a nil pointer or interface, detected by its
// methods panicking, which the reflector recovers) or has an empty name
// (the reflector's rule: every storable object has a name, as every
// Kubernetes object does and the default key requires), a Bookmark without
// a version, and an event of unknown type are reported as ErrMalformed and
// skipped. An event's version is its ResourceVersion, or its object's when
// empty.
//
// Store errors. A store that refuses a change (any method returning an
// error) is reported as ErrStore and the reflector relists after a backoff:
// Replace then brings the store back in step, including for the change it
// refused.
//
// Resync. With Options.ResyncPeriod > 0, the reflector calls Store.Resync
// every period while it watches, when Options.ShouldResync (nil: always)
// says so. The timer starts once the store is filled, restarts after every
// tick whether or not it resynced, keeps running through re-watches and
// their backoffs, and starts again after a relist.
//
// # Concurrency
//
// Run does all its work on the caller's goroutine: the source's List,
// Watch and each watch's Next, the store's methods, the hooks
// (ShouldResync, ErrorHandler) are all called from it, one at a time, never
// under a lock of the reflector. Events are pulled: a source converts each
// one inside Next, on this goroutine, so no goroutine of the source's
// stands between its stream and the store.
// A store fed by one reflector therefore sees its calls in order and
// serialised. Run returns promptly after its context ends, provided the
// source honours contexts and Watch.Stop, and leaves no goroutine behind.
// One Reflector runs at most once at a time. LastSyncResourceVersion and
// Name may be called from any goroutine.
//
// Run follows the shutdown rule of every Run in this module
// (informer.Informer.Run, queue.TypedRateLimitingQueue.Run): the end of its
// context is not an error, so Run returns nil then; a non-nil error means
// it could not run at all (here [ErrRunning]) and returned at once.
//
// # Performance
//
// The reflector makes no allocation per object: a list's slice goes to
// Store.Replace as is (pages are joined in one allocation), and a watch
// event costs one call of the watch's Next and none of the reflector's own
// timers or selects. BenchmarkInitialSync measures a whole pipeline from a
// memsource.Source; the bench module measures the reflector against
// client-go's (bench/RESULTS.md).
//
// # Differences from client-go
//
//   - Typed end to end: the source yields T and the store receives T; there
//     is no expected-type check because the compiler does it.
//   - Run takes a context instead of a stop channel and returns an error:
//     nil when the context ends, ErrRunning at once when the reflector is
//     already running (client-go's Run returns nothing).
//   - Capabilities replace guessing: client-go's streaming list is on by
//     default and hangs sources that accept SendInitialEvents but never send
//     the end bookmark (it logs a line every 10 seconds); here it is
//     used only when the source declares it, and given up for good, with
//     one warning, when the stream sends nothing for
//     StreamingListIdleTimeout.
//   - A failed watch is retried as a watch from the last version after a
//     backoff; client-go relists after most watch failures. Only expiry
//     (and store errors) make the reflector relist, since only then is the
//     store's version in doubt.
//   - After a watch expiry with progress, the relist happens at once;
//     client-go waits a backoff step first.
//   - The backoff grows with the length of an outage and starts again at
//     its first delay as soon as the source is healthy (a watch event, or
//     a watch open for a second). client-go's doubles at every failure
//     from 0.8 to 30 seconds and resets only when two minutes have passed
//     since its last reset, healthy or not: after a few seconds of
//     failures its next retry is about as far away as the outage was
//     long, and against a server that restarts every minute or so its
//     retries stay 30 to 60 seconds apart. Here retries stay 0.8 to 1.6
//     seconds apart through the first 8 seconds of every outage, then
//     spread out as a fraction of the outage (10% to 20%), with the same
//     30 second cap. The price is more retries early in a long outage:
//     about 27 in its first two minutes, where client-go makes about 8.
//   - Malformed events and store errors are reported through one
//     ErrorHandler with matchable sentinel errors (ErrMalformed, ErrStore,
//     ErrShortWatch); client-go logs them, and ignores store errors on watch
//     events.
//   - Resync runs on the watch goroutine, so the store's methods are never
//     called concurrently by one reflector; client-go resyncs from a second
//     goroutine.
//   - No internal-error retry window (MaxInternalErrorRetryDuration), no
//     connection-refused or 429 classification, no bookmark hand-off to the
//     store: the source contract has no such error classes, and bookmarks
//     advance LastSyncResourceVersion only.
//   - Logging through log/slog (Options.Logger) with a "reflector"
//     attribute; context.Context instead of stop channels.
//   - Run of a zero Reflector returns an error that says to call New.
package reflector
