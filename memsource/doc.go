// Package memsource is an in-memory source of objects with the resource
// version semantics of the Kubernetes API server: a reflector.ListerWatcher
// for examples, for tests of controllers, and for programs whose objects
// live in memory.
//
//	src := memsource.New(memsource.Options[*Pod]{})
//	src.Create(&Pod{Namespace: "ns", Name: "a"}) // stored at version "2"
//	r := reflector.New(src, store, reflector.Options{})
//
// Writes (Create, Update, Delete) and reads (Get, List, Watch) can run from
// any goroutine while a reflector follows the source. Faults (SetFaults,
// Compact, CloseWatches) make it misbehave the way a real server does, so
// that a test can check that its controller recovers; Stats shows what
// happened.
//
// # Semantics
//
// Versions. Every write makes a new resource version, one more than the
// last: a new source is at version 1 and its first write makes version 2
// (a new etcd cluster counts the same way). Versions are decimal strings,
// or opaque ones with Options.OpaqueVersions. Create and Update stamp the
// version on the stored object (with SetResourceVersion); Delete leaves the
// removed object as it was and reports the deletion's version in the
// Deleted event's ResourceVersion.
//
// Writes. Create of a stored key fails with ErrAlreadyExists; Update and
// Delete of a missing key fail with ErrNotFound; an Update whose object
// carries a version other than the stored one fails with ErrConflict
// (optimistic concurrency, as with the API server); an empty version
// updates unconditionally. Delete takes a key and DeleteObject an object
// (only its key matters); neither checks versions. Failures change
// nothing and wrap the key. Keys
// come from Options.KeyFunc, by default keys.Of; an
// object whose key cannot be computed (a nil pointer included) is an
// error, never a panic.
//
// Lists. List returns the objects in key order with the current version.
// With a Limit it returns pages and an opaque continue token; every page
// shows the state at the first page's version. A list "at least at" a
// version the source has not reached fails with reflector.ErrExpired.
//
// Watches. The source keeps the last Options.HistorySize writes. A watch
// from a version within them replays the writes after it and follows new
// ones; from an older version (or after Compact) its stream fails at once
// with an error wrapping reflector.ErrExpired, as from the API server's
// watch cache, and the reflector relists. "" and "0" start with an Added event
// per current object; SendInitialEvents does too, then marks the end with
// a Bookmark whose InitialEventsEnd is set. Periodic bookmarks carry the
// current version. Watch documents each case.
//
// Ownership. Like a server, the source isolates its objects from its
// callers by default: when T has a method DeepCopy() T, as every
// Kubernetes API type has, Create and Update store and stamp a copy of the
// object they are given (which is left as it was), and Get, List, every
// watch and the writes hand out copies, so a handler that modifies an
// object it received changes neither what the source serves next nor what
// another caller received. Options.Clone copies with a function of the
// caller's instead, for types without DeepCopy; a type with neither is
// shared, not copied: Create and Update keep and stamp the very object
// they are given, and every read hands out the stored objects themselves,
// so callers must treat them as read-only. Options.Shared turns the
// copies off for a type with DeepCopy. Copying costs one copy per object
// handed out, and one per write.
//
// Capabilities. Capabilities reports pagination, bookmarks and streaming
// lists. Options can turn each off, and make versions opaque, to test a
// controller against a poorer source: the source then ignores Limit and
// Continue, AllowBookmarks, SendInitialEvents (so an "" watch starts with
// Added events but never sends the end bookmark), or makes versions that
// are not numbers.
//
// Faults. Faults, set in Options or at run time with SetFaults, close every
// watch after N events, fail the next lists (List calls and streaming
// watches alike) or watches with a chosen error, expire the next watches, and delay lists and watches. Compact drops the
// history; CloseWatches ends every watch now. Delays use timers and the
// call's context, so tests run them in a testing/synctest bubble without
// waiting.
//
// # Concurrency
//
// A Source is safe for simultaneous use by multiple goroutines. Writes are
// serialised and versions are given in the order writes complete. Writers
// never wait for watchers or lists: a write costs a map update and a
// history append, whatever the number of watchers. Each watch has one
// goroutine, which reads the history at its consumer's pace and exits when
// the watch ends (Stop waits for it). A watch that falls further behind
// than the history ends with an expiry error instead of slowing writers.
//
// No user code runs under the lock that readers and watches take.
// SetResourceVersion runs while other writers wait for their turn (it
// must only record the value); key function, Clone (or DeepCopy) and
// GetResourceVersion run with no lock held.
//
// Inside a testing/synctest bubble, create and use a source within the
// bubble: its watches' channels belong to the bubble that made them.
//
// # Performance
//
// List keeps a key-sorted snapshot and rebuilds it only after writes, by
// merging the keys written since into it (sorting all keys only when there
// were more writes than objects), so a list costs one copy of the item
// slice. Keys written in order, as a bulk load often does, merge in linear
// time. Pages are binary searches into the snapshot of their version. The
// rebuild runs under the source's lock, so writers wait for it.
//
// A watch has no goroutine: its reader takes the history's records, up to
// 64 per lock acquisition, on its own goroutine, so an event costs no
// goroutine wakeup beyond the reader's own. This package's benchmarks
// (BenchmarkCreate, BenchmarkUpdate, BenchmarkList100k, BenchmarkWatch)
// measure the costs.
//
// # Differences from client-go
//
// client-go's fake clientset (k8s.io/client-go/testing's ObjectTracker)
// has no resource versions to speak of, no watch history (a watch sees only
// what happens after it starts, whatever version it asks for), no
// bookmarks, no pagination and no faults; a controller tested against it
// never meets an expired version or a dropped watch. This source behaves
// like the API server in those respects, with these differences:
//
//   - Versions count writes to this source only; there is no shared etcd
//     revision across types.
//   - A watch from a version newer than the current one expires at once;
//     the API server waits up to a few seconds for the version to appear.
//   - Continue tokens expire with the history rather than with a
//     time-based compaction, and a token's ResourceVersion argument is
//     ignored rather than rejected.
//   - List honours Limit at every ResourceVersion; the API server may
//     answer a list at "0" from its watch cache in one page.
//   - Deleted events carry the object's last stored state, with the
//     deletion's version only in Event.ResourceVersion (the API server
//     stamps the deletion version on the object).
//   - There are no label or field selectors, namespaces are only part of
//     the key, and there is no generation, UID or finalizer logic.
//   - Objects are copied on the way in and out with their DeepCopy method,
//     as client-go's ObjectTracker copies with DeepCopyObject; a type without
//     DeepCopy is copied with Options.Clone or else shared.
//   - Faults apply to every way of listing: FailLists fails List calls and
//     the streaming lists of watches alike.
//   - Delete takes a key and DeleteObject an object; neither checks
//     versions.
//   - A zero Source reads as empty and its methods that return an error
//     say to call New.
package memsource
