// Package controller builds controllers from typedcache's parts: a
// [Controller] reconciles the keys of one primary type, queued by the
// events of its informer ([For], [ForKey]) and of secondary informers
// whose objects map to primary keys ([Watches]), filtered by typed
// [Predicate]s, through a queue.TypedPriorityQueue served by
// queue.TypedRateLimitingQueue.Run's workers.
//
//	c := controller.New("foo", reconcile, controller.Options[string]{})
//	err := controller.For(c, fooInformer, controller.GenerationChanged[*Foo]())
//	err = controller.Watches(c, barInformer, func(b *Bar) []string {
//		return []string{keys.Join(b.Namespace, b.Owner)}
//	})
//	factory.Start(ctx)
//	err = c.Run(ctx)
//
// Everything is checked by the compiler: handlers, predicates and map
// functions receive the informer's T, keys are of the controller's K.
//
// # Semantics
//
//   - Keys. For queues an object's cache key, keys.Of(obj) (namespace/name
//     as keys.Join builds it), on a controller of string keys; ForKey makes
//     a key of any comparable type from that string. A deletion queues
//     Deleted.Key, so a deletion whose last state is unknown is reconciled
//     too. Watches queues the keys its map function returns, for both
//     states of an update.
//   - Predicates run before anything is queued; those passed to one watch
//     must all accept an event ([And]). [Or], [Not], [Matching] and the
//     change predicates ([GenerationChanged], [LabelsChanged],
//     [AnnotationsChanged], [ResourceVersionChanged]) compose.
//   - Priorities. The adds of the informers' initial lists and resyncs
//     go in at queue.PriorityLow, live changes at queue.PriorityNormal,
//     so that after a restart live changes come first; the queue's aging
//     bounds the wait of the low ones (see the queue package).
//   - Results. A reconcile's Result and error act as in Run: a zero
//     Result is done, RequeueAfter reconciles again after the delay, an
//     error is retried with the rate limiter's backoff, a terminal error
//     (queue.TerminalError) is not, Options.MaxRetries caps the retries
//     and Options.GiveUp hears of every key given up on. A panic is
//     recovered, logged with its stack and retried like an error.
//   - Start. Run waits until the handler of every watch has received its
//     informer's initial list; no reconcile runs before. The informers
//     are run by their owner (an informer.Factory), not by the
//     controller.
//   - Idle. [Controller.WaitIdle] blocks until the workers run, nothing
//     is queued and no key is being processed (keys waiting for a delay
//     do not count), so that tests need no sleeps; in a testing/synctest
//     bubble, after synctest.Wait, it also covers every change made.
//   - Sharding. Under a Manager whose Elector is a [Sharder] (kube/shard's
//     *Shard), every replica runs the controller, and each key is
//     reconciled by one replica at a time: the workers ask the
//     controller's [ShardGate] before each reconcile, forget the keys it
//     drops or parks, reconcile in the context it gives (which ends when
//     the replica may no longer run the key), and queue again at once a
//     key whose reconcile failed after that context was fenced. Keys are
//     named by the cache keys of their primary objects (Options.KeyName
//     for a ForKey controller), and the keys a replica gains come from
//     the primary informer's cache.
//   - Metrics. [Controller.Stats] is a snapshot of the counters
//     controller-runtime exports (reconciles by result, errors, terminal
//     errors, panics, reconcile time, workers), which Options.Metrics
//     hands to an exporter; the work queue's metrics go through
//     Options.QueueMetrics.
//
// # Concurrency
//
// A Controller is safe for simultaneous use by multiple goroutines. For,
// ForKey and Watches are called before Run; Run is called once. Reconcile
// runs on Options.MaxConcurrentReconciles workers, never twice at once
// for one key; a key queued while it is reconciled runs again after.
// Predicates and map functions run on the informers' handler goroutines,
// one per watch, never under a lock of the controller. Run returns only
// after its workers have returned and its handlers have been removed from
// their informers and will not be called again; the controller then
// rejects new work.
//
// Logs go through Options.Logger with the attribute controller=name; the
// work queue's records name the key as item. Inside reconcile,
// [LoggerFrom](ctx) returns that logger with the attribute key=key.
//
// # Differences from controller-runtime
//
//   - No builder and no client.Object: For, ForKey and Watches are
//     package functions (Go methods cannot have type parameters), taking
//     the informers themselves, and the key need not be a
//     reconcile.Request.
//   - Watches maps objects to keys with a plain func(T) []K. Owner
//     references are Kubernetes fields, so EnqueueRequestForOwner's
//     counterpart is in the kube module: kube.Owns[*Owner](c, owned), or
//     kube.ControllerOwnerKeys as the map function of Watches.
//   - The priority queue ages low-priority keys, so none starves
//     (controller-runtime#3496), and requeues keep a key's priority.
//   - A terminal error forgets the key's failures; a retry cap with a
//     give-up callback is built in; panics are always recovered (no
//     RecoverPanic switch); there is no Result.Requeue (return an error,
//     or a RequeueAfter) and no reconcile timeout (use ctx in reconcile).
//   - Run returns nil when its context ends, even before the caches
//     synced, and removes its handlers from the shared informers.
//   - There is no metrics registry: Stats is read by the prometheus
//     module's exporter when it collects. The reconcile_total "requeue"
//     result never counts.
package controller
