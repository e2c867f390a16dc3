// Package informer keeps a typed, indexed cache of a source's objects and
// tells any number of handlers about every change to it: the equivalent of
// client-go's SharedIndexInformer and SharedInformerFactory, typed end to
// end.
//
//	inf := informer.New(src, informer.Options[*Pod]{})
//	reg, _ := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
//		AddFunc:    func(p *Pod, _ bool) { queue.Add(key(p)) },
//		UpdateFunc: func(_, p *Pod) { queue.Add(key(p)) },
//		DeleteFunc: func(d informer.Deleted[*Pod]) { queue.Add(d.Key) },
//	})
//	var wg sync.WaitGroup
//	defer wg.Wait() // Run returns once ctx ends and its goroutines have exited
//	wg.Go(func() { inf.Run(ctx) })
//	err := informer.WaitForCacheSync(ctx, reg)
//	pod, ok := inf.Lister().Get("default", "web")
//
// A controller with a queue.TypedPriorityQueue registers
// PriorityEnqueue(q, itemOf) instead, which adds the initial list and
// resyncs at queue.PriorityLow, behind live changes.
//
// # Semantics
//
// Run composes the other packages: a reflector.Reflector lists and watches
// the source into a deltafifo.DeltaFIFO, and one processing goroutine
// takes the FIFO's deltas in batches, applies them to the
// indexer.Indexer that serves as the cache, and hands the resulting
// notifications to every handler. When the informer has synced and has
// at most one handler, unbounded or bounded with Coalesce, the reflector's
// goroutine applies a watch event and notifies the handler itself whenever
// the FIFO is idle and the processing goroutine has nothing to do: an
// event then reaches its handler with one goroutine wakeup instead of two.
// Likewise, when no handler's buffer is bounded with Block, the reflector's
// goroutine applies a list into an empty cache (the first list, usually)
// and pushes its notifications in batches itself, sparing the FIFO's
// bookkeeping of each listed object.
// What handlers are told is the same either way (but for the order of a
// key listed twice: see Order below):
//
//   - an object new to the cache: OnAdd(obj, inInitialList), where
//     inInitialList is set during the first list;
//   - a new state of a cached object: OnUpdate(old, new). A resync is an
//     update with identical old and new states: a periodic one, or one
//     from a relist that found the object at the version already cached.
//     Resyncs go only to the handlers whose resync period has elapsed (see
//     HandlerOptions.ResyncPeriod for client-go's period rules); every
//     watch event goes to every handler;
//   - an object leaving the cache: OnDelete(Deleted[T]{Key, Object,
//     Inferred}), with Inferred set when a relist showed that the source
//     deleted the object while the informer was not watching. The key is
//     the identity: an object deleted and created again under the same
//     name between two relists surfaces as an update.
//
// Options.Equal suppresses updates whose content did not change, beyond
// the resource-version check; the cache still stores the new state.
// Options.Transform slims objects before they are cached; NewProjected
// caches a projection T of a larger source type S, so that the cache,
// listers and handlers only ever hold T. Objects may share equal parts,
// such as maps of labels, once nothing will edit them: without a
// Transform the informer lists and watches ReadOnly, and the source may
// share them as it delivers them; with one, a source that implements
// reflector.Sharer (package kube's do) shares the objects of lists and
// creations after it, as they are cached.
//
// The informer has synced (HasSynced) once the first list has been applied
// to the cache and its notifications handed to the handlers. Each
// Registration has synced once, in addition, its handler has returned from
// OnAdd for every object of that list. A handler added after Run started
// first receives OnAdd(obj, true) for every object cached at that instant,
// then the notifications of later changes, with no gap and no overlap;
// its registration syncs once those adds are delivered.
// WaitForCacheSync waits for informers, registrations and factories
// without polling and names those that did not sync.
//
// Every handler has its own buffer of pending notifications and its own
// goroutine. The buffer is unbounded by default, like client-go's, and
// its depth is visible in Registration.Stats. BufferOptions bound it, with
// a stated policy when it is full: Block (the informer waits for the
// handler) or Coalesce (pending notifications for one key merge into one,
// so that memory is bounded by the number of keys).
//
// Block is back-pressure on the whole informer. The processing goroutine
// applies a batch of deltas to the cache, then hands its notifications
// to each handler's buffer in turn; at a full Block buffer it waits until
// that handler has finished with one of its pending notifications, and
// counts the wait in HandlerStats.BlockedPushes. Meanwhile the cache
// holds the whole batch, the handlers before the full one have it in
// their buffers, those after it do not yet, and no later batch is
// applied: the reflector goes on queueing the source's changes in the
// DeltaFIFO, whose memory grows instead (it never applies an event
// itself, nor starts applying a list, while a handler has a Block
// buffer). Nothing else waits: the cache
// and listers are read as usual, the other handlers work through their
// buffers, a handler added meanwhile receives the replay of the cache at
// once (the batch included) and then the later changes, and removing the
// full handler's registration or stopping the informer ends the wait.
//
// A handler that panics loses that one notification: the panic is
// recovered and reported to Options.ErrorHandler as a *HandlerPanicError, and
// the next notification is delivered at once.
//
// A Factory holds one informer per source, shared by all the controllers of
// a program (For, ForWithOptions), starts them together and shuts them
// down, waiting for every goroutine. Sources are told apart by their object
// type and their Identity (reflector.Identifier), or, without one, by the
// source value itself.
//
// # Cache mutation detector
//
// The objects an informer hands out are the cached ones, shared with every
// handler and lister: code that modifies one corrupts the cache for
// everyone. The cache mutation detector, a test aid, catches it. Turn it
// on with Options.MutationDetector.Enabled, or for every informer of a
// process with the environment variable MutationDetectorEnv
// (TYPEDCACHE_CACHE_MUTATION_DETECTOR=true), which lets CI check a whole
// test suite without a change to its code. It keeps a private copy of
// every object at the moment the cache takes it, and compares the copy
// with the shared object every MutationDetector.Period (a second by
// default) while the object is cached, when the cache replaces or deletes
// it, and at shutdown. Handlers may still hold an object the cache has
// replaced, so the detector keeps the copies of the last 1024 replaced or
// deleted objects, compares each one more time when it drops it, and at
// shutdown; its memory is bounded by the size of the cache plus those.
//
// Copies come from MutationDetector.Copy, or else from T's DeepCopy
// method returning T, which every Kubernetes type has. An informer whose
// detector is on but that has neither never runs: Run, AddEventHandler,
// AddIndexers and WaitForSync fail at once with an error wrapping
// ErrCannotCopy that names the type. The detector never turns itself off
// silently.
//
// Comparisons use go-cmp, which honours Equal methods (a Kubernetes
// resource.Quantity that formatted itself is not modified) and reads
// unexported fields. Each modified object is reported once, as a
// *CacheMutationError holding the informer's name, the object's key and
// the go-cmp diff from the copy to the shared object, to
// Options.ErrorHandler; and Run returns the first one instead of nil, so a
// test that checks Run's error, or whose ErrorHandler fails the test,
// fails. A Factory returns its informers' errors from Shutdown, so a test
// that checks Shutdown's error fails too. Under the race detector, a
// modification that is not ordered before a check (by the informer's own
// synchronisation, or because the modifying handler returned before
// shutdown) is also reported as a data race.
//
// The detector costs a copy and two comparisons per cached state and a
// comparison per cached object per period: for tests only. Off, it costs
// the event path nothing but a nil check.
//
// # Concurrency
//
// All exported methods are safe for simultaneous use by multiple
// goroutines. Each handler is called from one goroutine at a time, in the
// order the changes reached the cache, so notifications about one object
// arrive in order; different handlers run concurrently, without any order
// between them. A slow handler delays only itself: its notifications wait
// in its buffer while the cache and the other handlers go on (unless its
// buffer is bounded with Block, which is back-pressure by choice).
//
// Handlers run without any informer lock held and may call any method of
// the informer, its cache and its listers; a handler may remove its own
// registration, but must not wait on its own Registration.Done. The cache
// is updated before the handlers are told, so a handler reading the cache
// sees at least the state it was told about (perhaps a newer one).
//
// Key functions, index functions, Options.Equal and Options.Transform
// (and a NewProjected projection) run on the informer's goroutines; they
// must be fast and must not add or remove handlers. Run returns only when
// every goroutine it started has exited, including handler calls in
// progress: a handler that never returns keeps Run from returning.
//
// Run follows the shutdown rule of every Run in this module
// (reflector.Reflector.Run, queue.TypedRateLimitingQueue.Run): the end of
// its context is not an error, so Run returns nil then, once everything it
// started has exited; a non-nil error means it could not run at all (here
// [ErrStarted]) and returned at once. The one exception is the cache
// mutation detector's: with it on, Run returns at shutdown the first
// *CacheMutationError it found.
//
// # Performance
//
// Handing a notification to a handler allocates nothing: notifications
// are small values appended to each handler's buffer, a list of
// fixed-size segments that grows without copying, and the handler's
// goroutine takes the whole buffer at once and gives its segments back
// for reuse (up to 640 KB of them, fewer once the stream slows down). An
// event about an object the cache holds usually allocates nothing of its
// own: with the default key function its key is the string the cache
// already has (indexer.KeyFunc), unless the cache is being written at that
// instant. A new object's key is one allocation, and index functions
// allocate what they allocate (NamespaceIndexFunc: nothing, for a
// namespace in its cache). A watch event of a synced informer with one
// handler takes one goroutine wakeup to reach it, the handler's; with more
// handlers, two. Listings of the cache never hold off its writes.
//
// BenchmarkEvents, BenchmarkLatency, BenchmarkInitialSync and
// BenchmarkWritesUnderListers measure these paths; the bench module
// measures them against client-go's SharedIndexInformer, through the kube
// adapter as a Kubernetes controller runs them (bench/RESULTS.md).
//
// # Differences from client-go
//
//   - Typed end to end: handlers receive T, listers return T, deletions are
//     a Deleted[T] value instead of an object or a
//     DeletedFinalStateUnknown behind interface{}; there is no type
//     assertion to get wrong.
//   - Relists: an object whose resource version did not change is
//     re-delivered (OnUpdate with old and new at the same version) only to
//     handlers whose resync is due; client-go v0.37 delivers it to every
//     handler that has no resync period. A relist is a recovery, not a
//     resync: handlers that did not ask for resyncs are not flooded.
//   - Resyncs are recognised by where an update comes from (a periodic
//     resync, or a relist at an unchanged, non-empty version), not by
//     comparing versions alone: a watch event whose version equals the
//     cached one still reaches every handler, and sources without
//     versions lose no update. client-go treats any update at an unchanged
//     version as a resync.
//   - Order: the informer consumes the per-key DeltaFIFO, so all pending
//     changes of one object are delivered together, at the place of its
//     oldest pending change, except for the changes that arrive while the
//     object is being processed (its batch is being applied to the cache
//     and handed to handlers, which can take a while when a Block buffer
//     is full): those wait, and once that processing finishes they are
//     queued at the end, so that they can follow changes of other objects
//     that arrived after them (the DeltaFIFO's own rule: see its package
//     doc). client-go's informers now use RealFIFO, which keeps arrival
//     order across objects. Changes of one object are in order in both. A list the reflector applies itself is applied in
//     list order: should the key function map two listed objects to one
//     key, the second is an update in its own place, as with RealFIFO.
//   - One goroutine and one mutex-guarded buffer per handler, with no
//     allocation per notification; client-go uses three goroutines and two
//     channel hops per handler.
//   - Bounded buffers with a Block or Coalesce policy, and a depth gauge
//     (Registration.Stats); client-go's buffers are unbounded and
//     invisible.
//   - Metrics are counters and gauges the informer always keeps and an
//     exporter reads when it collects them (Informer.Stats, handed over by
//     Options.Metrics): lists, watches, relists by reason, watch errors,
//     events by type, cache size, and each handler's buffer. client-go
//     exports three alpha FIFO metrics through a global provider, and no
//     reflector or handler metrics.
//   - A handler panic is always recovered, reported and skipped, with no
//     pause; client-go crashes the process by default, and otherwise pauses
//     the handler for a second.
//   - Options.Equal suppresses content-identical updates; client-go only
//     compares resource versions.
//   - Run returns nil when its context ends (the rule of every Run in
//     this module), an error (ErrStarted) when called twice, and returns
//     only after all its goroutines have exited. Configuration is fixed at
//     construction (Options), so there is no SetTransform or
//     SetWatchErrorHandler to call too late.
//   - WaitForCacheSync waits on channels and returns an error naming what
//     did not sync; client-go's polls every 100ms and returns a bool.
//   - An informer a Factory never starts because it has shut down (For
//     after Shutdown, or before it without a Start) fails waits,
//     AddEventHandler and Run at once with ErrFactoryShutDown; client-go's
//     factory hands it out and a wait for it only times out.
//   - An index function that fails on an object does not keep it out of
//     the cache: the object is cached and left out of that index only, the
//     failure is reported once per object (an *indexer.IndexError naming
//     the index and key) and counted in Stats. client-go's store panics.
//   - A zero Factory works; a zero Informer fails with an error naming its
//     constructors and reads as empty. client-go's factory and informer
//     are interfaces over unexported types: only constructors make them.
//   - Nil arguments are errors that say so: a nil Syncer given to
//     WaitForCacheSync (which one of how many), a nil Registration given
//     to RemoveEventHandler, a nil Handler.
//   - The cache mutation detector reports a modified object to the
//     ErrorHandler and as Run's error (and a Factory's Shutdown's), with
//     its key and a go-cmp diff; client-go's prints a side-by-side dump
//     and panics. It keeps a bounded number of replaced objects where
//     client-go keeps every object for two minutes. It honours
//     TYPEDCACHE_CACHE_MUTATION_DETECTOR, not client-go's
//     KUBE_CACHE_MUTATION_DETECTOR: a variable another library owns, read
//     with another failure contract, does not change what Run returns (a
//     Kubernetes CI that wants both sets both).
//   - Logging through log/slog; context.Context instead of stop channels.
package informer
