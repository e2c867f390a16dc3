package controller

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/queue"
)

var (
	// ErrStarted reports a call made after Run that must come before it:
	// a second Run of a Controller or a Manager, For, ForKey or Watches
	// after the controller's Run, Manager.Add after the manager's Run.
	ErrStarted = errors.New("controller: already started")
	// ErrStopped is returned by WaitIdle once Run has returned.
	ErrStopped = errors.New("controller: stopped")
	// ErrNoPrimary is returned by Run for a controller without a primary
	// watch (For or ForKey), and by For and ForKey called a second time.
	ErrNoPrimary = errors.New("controller: needs exactly one primary watch (For or ForKey)")

	// errZero is the error of a zero Controller.
	errZero = errors.New("controller: a zero Controller cannot be used: create it with New")
)

// Options holds the optional settings of a [Controller]. The zero value
// is one worker, the default rate limiter, retries without a cap, errors
// logged at Error through [slog.Default], and no metrics.
type Options[K comparable] struct {
	// MaxConcurrentReconciles is the number of workers, so the number of
	// keys reconciled at once; zero means 1. New panics if it is negative.
	MaxConcurrentReconciles int

	// RateLimiter delays the retries of failed keys; nil means
	// queue.DefaultTypedControllerRateLimiter.
	RateLimiter queue.TypedRateLimiter[K]
	// Aging is the aging of the controller's priority queue
	// (queue.PriorityOptions.Aging); zero means queue.DefaultAging.
	Aging time.Duration

	// MaxRetries, GiveUp and ErrorLevel are those of queue.RunOptions: a
	// cap on the retries of a failing key, a call for each key given up
	// on (terminal error or cap reached), and the log level of each
	// error.
	MaxRetries int
	GiveUp     func(ctx context.Context, key K, err error)
	ErrorLevel func(err error) slog.Level

	// Logger receives the controller's records, which carry its name
	// ("controller") and, for a key, the key ("item" in the work queue's
	// records), and is the parent of the loggers LoggerFrom returns in
	// reconcile. Nil means slog.Default.
	Logger *slog.Logger

	// Metrics, if set, is called once, by New, with the controller's name
	// and its Stats method, for a metrics exporter to read when it
	// collects.
	Metrics MetricsProvider
	// QueueMetrics, if set, is the queue.Options.Metrics of the
	// controller's work queue, which is named after the controller.
	QueueMetrics queue.MetricsProvider

	// KeyName names a key for a Sharder (see ManagerOptions.Elector): it
	// returns the cache key of the key's primary object, the string
	// ForKey's keyOf makes the key from, so that keyOf(KeyName(k)) is k.
	// Replicas own keys by their names. A controller whose primary watch
	// is For needs none (its keys are cache keys); one whose primary
	// watch is ForKey needs one to be sharded, or the Manager's Run fails
	// with ErrNoKeyName. Without a Sharder it is not used.
	KeyName func(key K) string
}

// Controller reconciles the keys of type K that its watches queue: the
// primary informer's objects (For, ForKey) and the objects of secondary
// informers mapped to primary keys (Watches). See the package
// documentation for its guarantees.
//
// A Controller is safe for simultaneous use by multiple goroutines. Create
// it with New, add its watches, then call Run once. A zero Controller
// cannot be used: its Run, For, ForKey, Watches and WaitIdle return an
// error that names New.
type Controller[K comparable] struct {
	name      string
	reconcile func(context.Context, K) (queue.Result, error)
	logger    *slog.Logger
	queue     *queue.TypedPriorityQueue[K]
	runOpts   queue.RunOptions[K]
	metrics   metrics
	// snapshot reads the queue's gauges; set by the queue's constructor.
	snapshot func() queue.MetricsSnapshot
	// keyName is Options.KeyName, or the identity once For made the
	// primary watch; nil otherwise.
	keyName func(K) string
	// gate, set before Run by a Manager whose Elector is a Sharder,
	// decides which keys the workers process; nil when not sharded.
	gate ShardGate

	// mu guards the fields below; cond, on mu, is broadcast when the
	// controller may have become idle, or stopped (see idle.go).
	mu         sync.Mutex
	cond       sync.Cond
	hasPrimary bool
	started    bool
	// working is set once the watches have synced and the workers run.
	working bool
	stopped bool
	watches []watch
	// primary is the primary watch, once added.
	primary primary[K]
	// reconciling counts the keys whose reconcile has been called and
	// whose processing has not ended (the queue reports the end of each
	// with Metrics.Processed).
	reconciling int
}

// watch is a handler the controller registered on an informer.
type watch struct {
	reg informer.Syncer
	// remove removes the handler and returns a channel closed once it
	// will not be called again.
	remove func() <-chan struct{}
}

// primary is what a sharded controller needs of its primary watch.
type primary[K comparable] struct {
	// all returns the keys of the primary informer's cache.
	all func() iter.Seq[string]
	// keyOf makes the controller's key from a cache key.
	keyOf func(key string) (K, error)
}

// New returns a controller called name that reconciles keys of type K with
// reconcile. Add its primary watch with For or ForKey, and secondary ones
// with Watches, before Run. New panics if name is empty, reconcile is nil
// or opts.MaxConcurrentReconciles is negative.
//
// reconcile is called from the workers, never twice at once for one key.
// Its Result and error decide what happens to the key, as for
// queue.TypedRateLimitingQueue.Run: a zero Result is done, RequeueAfter
// reconciles again after that delay, an error is retried with backoff
// unless it is terminal (queue.TerminalError) or the retries reached
// opts.MaxRetries, and a panic is recovered and retried like an error.
func New[K comparable](name string, reconcile func(ctx context.Context, key K) (queue.Result, error), opts Options[K]) *Controller[K] {
	switch {
	case name == "":
		panic("controller: New called with an empty name")
	case reconcile == nil:
		panic("controller: New called with a nil reconcile function")
	case opts.MaxConcurrentReconciles < 0:
		panic(fmt.Sprintf("controller: Options.MaxConcurrentReconciles must not be negative, got %d", opts.MaxConcurrentReconciles))
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	c := &Controller[K]{
		name:      name,
		reconcile: reconcile,
		logger:    logger.With("controller", name),
		keyName:   opts.KeyName,
		runOpts: queue.RunOptions[K]{
			Workers:    max(opts.MaxConcurrentReconciles, 1),
			MaxRetries: opts.MaxRetries,
			GiveUp:     opts.GiveUp,
			ErrorLevel: opts.ErrorLevel,
		},
	}
	c.cond.L = &c.mu
	c.metrics.maxWorkers = c.runOpts.Workers
	c.queue = queue.NewTypedPriorityQueue(opts.RateLimiter, queue.PriorityOptions{
		Options: queue.Options{
			Name:    name,
			Logger:  c.logger,
			Metrics: c.queueMetrics(opts.QueueMetrics),
		},
		Aging: opts.Aging,
	})
	if opts.Metrics != nil {
		opts.Metrics(name, c.Stats)
	}
	return c
}

// Name returns the controller's name.
func (c *Controller[K]) Name() string { return c.name }

// HasSynced reports whether the handler of every watch has received the
// initial list of its informer, so that every object listed is queued.
// It reports false before the primary watch is added.
func (c *Controller[K]) HasSynced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.hasPrimary {
		return false
	}
	for _, w := range c.watches {
		if !w.reg.HasSynced() {
			return false
		}
	}
	return true
}

// Run waits until every watch has synced, then reconciles queued keys
// with Options.MaxConcurrentReconciles workers until ctx ends. No
// reconcile starts before every watch has synced.
//
// Run returns nil once ctx ends, whether or not the watches had synced,
// and only after everything it started has exited: its workers have
// returned, its handlers are removed from their informers and will not be
// called again, and the work queue is shut down. It returns an error at
// once if the controller has no primary watch or Run was called before
// (ErrStarted), and an error wrapping informer.ErrNotSynced if an informer
// stops before it syncs (its factory shut down, for example). A
// controller runs once.
func (c *Controller[K]) Run(ctx context.Context) error {
	if c.queue == nil {
		return errZero
	}
	c.mu.Lock()
	switch {
	case c.started:
		c.mu.Unlock()
		return ErrStarted
	case !c.hasPrimary:
		c.mu.Unlock()
		return ErrNoPrimary
	}
	c.started = true
	watches := slices.Clone(c.watches)
	c.mu.Unlock()
	defer c.stop(watches)

	syncers := make([]informer.Syncer, len(watches))
	for i, w := range watches {
		syncers[i] = w.reg
	}
	c.logger.InfoContext(ctx, "waiting for caches to sync", "watches", len(watches))
	if err := informer.WaitForCacheSync(ctx, syncers...); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("controller %s: %w", c.name, err)
	}
	c.mu.Lock()
	c.working = true
	c.cond.Broadcast()
	c.mu.Unlock()
	c.logger.InfoContext(ctx, "starting workers", "workers", c.runOpts.Workers)
	return c.queue.Run(ctx, c.process, c.runOpts)
}

// stop removes the handlers, waits until none of them runs, shuts the
// queue down and wakes WaitIdle.
func (c *Controller[K]) stop(watches []watch) {
	for _, w := range watches {
		<-w.remove()
	}
	c.queue.ShutDown()
	c.mu.Lock()
	c.stopped = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// process is what the workers call for each key: reconcileKey, through
// the gate when the controller is sharded.
func (c *Controller[K]) process(ctx context.Context, key K) (queue.Result, error) {
	c.mu.Lock()
	c.reconciling++
	c.mu.Unlock()
	if c.gate != nil {
		return c.gated(ctx, key)
	}
	return c.reconcileKey(ctx, key)
}

// reconcileKey calls reconcile, measured, with the key's logger in its
// context (built if LoggerFrom asks).
func (c *Controller[K]) reconcileKey(ctx context.Context, key K) (res queue.Result, err error) {
	c.metrics.active.Add(1)
	start := time.Now()
	returned := false
	defer func() {
		// A panic leaves returned false and goes on to the queue's
		// worker, which recovers it.
		c.metrics.observe(time.Since(start), res, err, !returned)
		c.metrics.active.Add(-1)
	}()
	ctx = context.WithValue(ctx, loggerKey{}, &keyLogger[K]{parent: c.logger, key: key})
	res, err = c.reconcile(ctx, key)
	returned = true
	return res, err
}
