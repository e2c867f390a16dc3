// Package prometheus exports the metrics of typedcache's work queues,
// informers and controllers to Prometheus. It is a module of its own, so that the core
// module depends on no metrics library.
//
// New registers every metric on a prometheus.Registerer; its Provider's
// Queue method is a queue.Options.Metrics and its Informer method an
// informer.Options.Metrics (or informer.FactoryOptions.Metrics, for every
// informer of a factory), and its Controller method a
// controller.Options.Metrics:
//
//	p, err := prometheus.New(registry)
//	...
//	factory := informer.NewFactory(informer.FactoryOptions{Metrics: p.Informer})
//	q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{Name: "foos", Metrics: p.Queue})
//	c := controller.New("foo", reconcile, controller.Options[string]{Metrics: p.Controller, QueueMetrics: p.Queue})
//
// # Metrics
//
// Queue metrics have client-go's names, help texts and label (name, the
// queue's name), as Kubernetes components and controller-runtime export
// them, so existing dashboards keep working: workqueue_depth,
// workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds and workqueue_retries_total
// (with controller-runtime's histogram buckets, so that its dashboards'
// quantiles read the same). One is added: workqueue_processed_total,
// labelled by name and outcome (succeeded, requeued, failed, terminal,
// gave_up), counts what the queue's worker loop did with each item.
//
// workqueue_depth also has controller-runtime's priority label: empty for
// queues without priorities, and for a queue.TypedPriorityQueue one series
// per priority (queue.PriorityNormal and queue.PriorityLow always, other
// priorities while they hold items), which sum to the depth. For those
// queues workqueue_oldest_item_age_seconds, labelled by name and priority,
// is how long the oldest item queued at each priority has waited, so that
// a priority falling behind shows as a growing age rather than only as a
// depth.
//
// Informer metrics are labelled by name, the informer's name:
//
//   - reflector_lists_total and reflector_watches_total count the lists
//     and watches started (the names Kubernetes once exported); a
//     streaming list counts as a list and as a watch, since its watch goes
//     on delivering events and bookmarks after the list;
//   - reflector_relists_total counts relists by reason: expired (the
//     resource version expired) or error (a list or the store failed);
//   - reflector_watch_errors_total counts watches that failed to start or
//     ended with an error, expiries included;
//   - reflector_resyncs_total counts the periodic resyncs of the cache;
//   - reflector_watch_events_total counts watch events by type (added,
//     updated, deleted, bookmark);
//   - reflector_last_successful_list_timestamp_seconds is the Unix time of
//     the last successful list;
//   - reflector_time_since_last_watch_event_seconds is the time since the
//     last watch event, bookmarks included, to within the interval
//     between two scrapes (see reflector.Stats.LastEvent); it is absent
//     until the first event;
//   - informer_cached_objects is the number of objects in the cache;
//   - informer_queued_items is the number of keys waiting in the
//     informer's DeltaFIFO, client-go's name for its FIFO depth;
//   - informer_index_failures_total counts the failures of index
//     functions on cached objects, and informer_unindexed_objects is the
//     number of cached objects missing from an index because its function
//     failed on them (see informer.Stats; client-go has neither).
//
// Handler metrics are labelled by name and handler, the handler's name:
// informer_handler_pending_notifications (the depth of its buffer),
// informer_handler_notifications_total (notifications delivered),
// informer_handler_blocked_pushes_total (waits for room in a full Block
// buffer), informer_handler_coalesced_notifications_total (merges in a
// full Coalesce buffer) and informer_handler_panics_total. Handlers that
// share a name are added together.
//
// Controller metrics have controller-runtime's names and help texts,
// labelled by controller, the controller's name, so that its dashboards
// work: controller_runtime_reconcile_total (by result: success, error,
// requeue, which never counts since queue.Result has no Requeue, and
// requeue_after), controller_runtime_reconcile_errors_total,
// controller_runtime_terminal_reconcile_errors_total,
// controller_runtime_reconcile_panics_total,
// controller_runtime_reconcile_time_seconds (controller-runtime's buckets),
// controller_runtime_max_concurrent_reconciles and
// controller_runtime_active_workers. A controller's work queue, given
// QueueMetrics, exports the workqueue metrics under the controller's name,
// as controller-runtime's does.
//
// # Cost
//
// Counters that change with every event are kept by the informer, the
// queue and the controller themselves and read when Prometheus collects them; only the
// queue's adds, retries, latencies and outcomes are pushed to Prometheus
// as they happen, as client-go does.
//
// # Names
//
// Give queues, informers and controllers distinct names: one name
// exports one set of gauges, the latest queue, informer or controller
// registered under it (one made again after a restart replaces the old
// one); a controller's counters, too, are those of the latest. Counters of
// queues that share a name are added together.
package prometheus
