// Package queue provides typed work queues for controllers: a [Queue] that
// never hands one item to two workers at once, a [TypedDelayingQueue] that
// adds items after a delay, and a [TypedRateLimitingQueue] that retries
// failed items with per-item backoff, a [TypedPriorityQueue] that serves
// items by priority without starving any, plus the rate limiters of
// client-go's workqueue and a worker loop, [TypedRateLimitingQueue.Run].
//
// The names follow client-go's typed workqueue (k8s.io/client-go/util/workqueue)
// so that moving a controller over is mechanical, but constructors return
// concrete types, blocking calls take a context, and items are of any
// comparable type K with no boxing.
//
// # Semantics
//
// An item is in at most one of these states, plus possibly a pending delayed
// add:
//
//   - queued: waiting for a worker. Adding a queued item again does nothing,
//     so duplicates collapse; otherwise items are handed out in the order
//     they were queued.
//   - processing: handed out by Get and not yet marked Done. Get never hands
//     out an item that is processing. Adding it marks it dirty: it is queued
//     again, at the back, when Done is called, so it runs once more and
//     never concurrently with itself.
//
// A pending delayed add ([TypedDelayingQueue.AddAfter]) queues the item when
// its delay ends. Each item has at most one: the earliest ready time wins,
// AddAfter of a queued item, or of a processing item already added again
// (dirty), does nothing (it will run sooner anyway; client-go runs it once
// more after the delay), and Add
// (or AddAfter with d <= 0) of an item with a pending delayed add queues it
// now and withdraws the delayed add, so it runs once.
// [TypedDelayingQueue.CancelAfter] withdraws a pending delayed add.
//
// [Queue.Len] counts queued items that are not processing. After
// [Queue.ShutDown], Add and AddAfter do nothing and pending delayed adds are
// dropped, but Get keeps handing out the queued items, including dirty ones,
// until none is left; then it returns [ErrShutDown].
// [Queue.ShutDownWithDrain] shuts down the same way and waits until every
// queued item has been handed out and marked Done. Neither waits for
// pending delayed adds, including rate-limited retries: they are dropped.
//
// Invalid arguments never hang: a delay <= 0 means now, a delay too large to
// represent means never, negative limiter durations are treated as 0, a nil
// limiter means [DefaultTypedControllerRateLimiter], and Run rejects a
// negative worker count with an error.
//
// # The worker loop
//
// [TypedRateLimitingQueue.Run] is the loop every controller writes: its
// workers take items and call a process function that returns a [Result]
// and an error. A nil error forgets the item's failures, and a positive
// Result.RequeueAfter adds it again after that delay; an error is retried
// with backoff, unless it matches [ErrTerminal] (see [TerminalError]) or
// the item already had [RunOptions.MaxRetries] retries, in which case Run
// forgets the item, logs the give-up and calls [RunOptions.GiveUp].
// [RunOptions.ErrorLevel] picks the log level of each error, so that
// routine ones (conflicts) stay below Error. Each outcome is counted by
// [Metrics.Processed].
//
// # Priorities
//
// A [TypedPriorityQueue] hands out ready items by virtual deadline, the
// earliest first: an item of priority p that became ready at time r is due
// at r − p·A, where A is [PriorityOptions.Aging] ([DefaultAging], 1s, by
// default). One unit of priority is worth A of waiting: items of equal
// priority keep FIFO order, and an item overtakes every item of a higher
// priority q that becomes ready more than (q − p)·A after it. Items due at
// the same instant, whatever their priorities, are handed out in the order
// they got that deadline: when they became ready, or when an add raised
// them to it. So a [PriorityLow] item ready since r goes before a
// [PriorityNormal] item that becomes ready at r + 100·A, both due then. An item
// becomes ready when it is added, when its delayed add comes due (r is
// then the ready time asked for), or at Done if it was added again while
// processing. With the defaults, a [PriorityLow] item (an informer's
// initial list or resync) yields to [PriorityNormal] items (live changes)
// for at most 100s, then takes its turn.
//
// That makes starvation impossible, and bounds every wait. Let W workers
// process each item in at most S, let at most D items be queued at once,
// and let P be the highest priority added. An item of priority p waits for
// a worker at most
//
//	(P − p)·A + ⌈D/W⌉·S
//
// because from (P − p)·A after it became ready on, every item that becomes
// ready, or is raised to a higher priority, is due after it, so only the
// fewer than D items queued ahead of it remain, and the workers take W of
// them every S. D stays bounded under any sustained load the workers can
// absorb, and under self-requeueing loads that keep them busy for ever (a
// fixed set of items each added again while it is processed), where strict
// priority would never serve the lower priorities. With strict priority a low item's wait has no
// bound; here a smaller A shortens the first term, at the price of live
// changes overtaking the initial list for less long.
//
// Adds collapse as in the other queues, each item keeping one pending add
// at the highest priority and the earliest ready time asked for
// ([TypedPriorityQueue.AddWithOptions]). A ready item whose priority is
// raised is due at the earlier of its deadline and the raising add's: it
// goes behind the items of its new priority that became ready before the
// add, unless its wait has already made it due earlier. That holds for a
// delayed raising add too (After > 0, or RateLimited): the item is ready
// already, the earliest ready time wins, so it is raised as at once and
// never waits behind its old priority for the delay. A raising add of an
// item being processed sets the priority of its next run: if it was added
// again meanwhile, that run is ready at Done, whatever the delay; if not,
// the add's delay applies, as for any item the queue does not hold. AddAfter,
// AddRateLimited, and so Run's retries and Result.RequeueAfter, keep the
// item's priority: the one it was handed out at, or that of its pending
// add. An add of an item being processed, with no pending add, sets the
// priority of its next run; later adds may raise it. So a process function
// that wants its item run again at another priority calls AddWithOptions
// itself, with After for a delay, and returns a zero Result.
//
// Compared with controller-runtime's priority queue
// (sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue), whose
// rules of dedup (highest priority, earliest ready time, the shorter of
// After and the rate limiter's delay) it shares:
//
//   - controller-runtime serves the highest priority first without aging,
//     so a steady stream of priority-0 items starves the -100 ones
//     (kubernetes-sigs/controller-runtime#3496); here every item's wait
//     is bounded as above.
//   - Its AddAfter and AddRateLimited add at priority 0, so a requeue
//     keeps the item's priority only if the controller passes it again;
//     here the queue keeps it.
//   - Raising a queued item's priority moves it to the back of its new
//     priority there, as here, but there also after an item that had
//     waited long enough at its old priority to be due earlier.
//   - It starts goroutines of its own (the loop that hands items out, and
//     tickers for metrics and logs), and its ShutDownWithDrain does not
//     drain; here the queue owns no goroutine and draining waits for
//     every item.
//   - Its depth metric is labelled by priority; so is workqueue_depth in
//     the prometheus module, which adds the age of the oldest item of each
//     priority ([MetricsSnapshot].Priorities), the sign of a priority
//     falling behind.
//
// # Concurrency
//
// All queue methods are safe for simultaneous use by multiple goroutines;
// one mutex guards each queue. Get, ShutDownWithDrain and Run block; they
// return when their context ends, and Get then leaves the queue unchanged.
// Delayed adds
// are driven by a single [time.AfterFunc] timer, reset to the earliest ready
// time, so a queue owns no goroutine and needs no Close. A due item is
// queued by the timer, or earlier by an AddAfter or a waiting Get that
// notices it, and never before its ready time: at most 100µs after it while
// the process is busy; when the process is idle Go's timers resolve to about
// 1ms on Linux. Run owns its worker goroutines and returns only after they
// have exited.
//
// Run follows the shutdown rule of every Run in this module
// (informer.Informer.Run, reflector.Reflector.Run): the end of its context
// is not an error, so Run returns nil then, as it does when the queue has
// shut down and handed out every item; a non-nil error means it could not
// run at all (invalid options) and returned at once.
//
// Rate limiters, metric hooks and the function given to Run are never called
// with the queue's lock held. The built-in limiters are safe for
// simultaneous use.
//
// An Add, Get and Done cycle allocates nothing, in a TypedPriorityQueue
// too, nor does AddRateLimited with the default limiter, in steady state.
// A queue of string items holds 32 bytes per item in its slot arena plus
// up to 16 in its index; a TypedPriorityQueue adds 48 per item for its
// priority and heap entry, and costs O(log n) per Get instead of O(1). An
// emptied queue releases large storage. The bench module measures the
// costs against client-go's work queues (bench/RESULTS.md).
//
// # Differences from client-go
//
//   - Add, or AddAfter with d <= 0, of an item with a pending delayed add
//     supersedes the delayed add: the item runs once. client-go runs it now
//     and again when the delay ends (kubernetes/kubernetes#126027).
//   - AddAfter of an item that is already queued does nothing; client-go
//     queues it a second time after the delay.
//   - A pending delayed add can be withdrawn with CancelAfter.
//   - ShutDownWithDrain waits for queued items too, not only for those being
//     processed (client-go may return with items still queued,
//     kubernetes/kubernetes#141079), takes a context to bound the wait, and
//     items added while processing before the shutdown still run. Get
//     returns ErrShutDown only when no dirty item is left to come back.
//   - Get takes a context; Done of an item that is not processing does
//     nothing (client-go would queue it a second time if it was queued).
//   - Delayed adds use a timer reset to the earliest ready time instead of a
//     goroutine with a 10s heartbeat and a 1000-entry add channel, so items
//     are handed out on time and AddAfter never blocks.
//   - Metrics are enabled per queue through [Options.Metrics]; there is no
//     global provider and no name requirement. Depth, unfinished work and
//     the longest running processor are read when collected
//     ([MetricsSnapshot]) instead of being pushed every 500ms, so a queue
//     starts no goroutine for them.
//   - There is no pluggable ordering (TypedQueueConfig.Queue) and no
//     injected clock; tests use testing/synctest. Priorities come with
//     TypedPriorityQueue instead (see Priorities), which client-go lacks.
//   - client-go has no worker loop; Run follows controller-runtime's:
//     [Result] and [TerminalError] mirror reconcile.Result (without its
//     deprecated Requeue field: return an error, or a RequeueAfter) and
//     reconcile.TerminalError. Unlike controller-runtime, a terminal error
//     also forgets the item's failures, a retry cap
//     ([RunOptions.MaxRetries]) with a give-up callback is built in, the
//     log level of errors is chosen by [RunOptions.ErrorLevel], panics are
//     always recovered and retried (there is no RecoverPanic switch), and
//     an item interrupted by the end of Run's context is retried, not
//     counted as a failure towards the cap. Run returns nil when its
//     context ends, the rule of every Run in this module.
//   - Metrics count Run's outcomes ([Metrics.Processed], by [Outcome]).
//     Run's log records carry the queue's name only when [Options.Name]
//     is set.
//   - A zero queue panics at first use with a message naming the
//     constructors, and its Run returns that message as an error;
//     client-go's zero queue panics with a nil dereference.
package queue
