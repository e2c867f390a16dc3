package reflector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/keys"
)

// Reflector keeps a Store in step with a ListerWatcher: it lists the
// source, replaces the store's content with the result, then applies the
// source's watch events one by one, relisting and retrying as the package
// documentation describes.
//
// Run drives it; LastSyncResourceVersion and Name are safe for simultaneous
// use by multiple goroutines. Use New to create one: Run of a zero
// Reflector returns an error that names New.
type Reflector[T keys.Object] struct {
	lw    ListerWatcher[T]
	store Store[T]
	caps  Capabilities
	name  string
	log   *slog.Logger

	resyncPeriod    time.Duration
	shouldResync    func() bool
	pageSize        int64
	streaming       bool // use streaming lists; cleared for good when one stalls
	readOnly        bool // Options.ReadOnly, passed on to every List and Watch
	streamIdle      time.Duration
	minWatchTimeout time.Duration
	onError         func(context.Context, error)
	rand            func() float64 // in [0, 1); tests replace it

	running atomic.Bool // set while Run runs

	counters counters

	mu     sync.Mutex
	lastRV string // guarded by mu
	// seenEvents and lastEvent, guarded by mu, are Stats' record of the
	// event total it last saw and when it first saw it.
	seenEvents uint64
	lastEvent  time.Time

	// State of the goroutine in Run; no other goroutine touches it.
	rvUnavailable bool // the last list or stream at lastRV expired: next one at ""
	paginated     bool // the list at "0" came back in pages: keep paginating
	backoff       backoff
}

// New returns a Reflector that mirrors lw into store. It reads
// lw.Capabilities once, here. New panics if lw or store is nil.
func New[T keys.Object](lw ListerWatcher[T], store Store[T], opts Options) *Reflector[T] {
	if lw == nil || store == nil {
		panic("reflector: New needs a ListerWatcher and a Store")
	}
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("%T", *new(T))
		if name == "<nil>" { // T is an interface type
			name = "reflector"
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	caps := lw.Capabilities()
	return &Reflector[T]{
		lw:              lw,
		store:           store,
		caps:            caps,
		name:            name,
		log:             logger.With("reflector", name),
		resyncPeriod:    opts.ResyncPeriod,
		shouldResync:    opts.ShouldResync,
		pageSize:        opts.PageSize,
		streaming:       caps.StreamingList && !opts.DisableStreamingList,
		streamIdle:      cmp.Or(opts.StreamingListIdleTimeout, defaultStreamingListIdleTimeout),
		minWatchTimeout: max(opts.MinWatchTimeout, defaultMinWatchTimeout),
		onError:         opts.ErrorHandler,
		readOnly:        opts.ReadOnly,
		rand:            rand.Float64,
		backoff:         backoff{cfg: opts.Backoff.withDefaults()},
	}
}

// Name returns the reflector's name, as set by Options.Name or defaulted.
func (r *Reflector[T]) Name() string { return r.name }

// LastSyncResourceVersion returns the resource version of the last list or
// event applied to the store, or "" before the first list. It is not
// synchronised with the store's consumers: they may not have seen that
// version yet.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

func (r *Reflector[T]) setLastRV(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
}

// Run lists, watches, relists and retries until ctx ends, then returns nil,
// as every Run in this module does when its context ends. It starts no
// goroutine of its own: every call into the source and the store happens
// on the caller's goroutine, and nothing is left running when Run returns
// (the source must end a List or Watch when its context ends).
//
// Run may be called again after it returns; it then relists from the last
// version it saw. A call while another Run of the same reflector is still
// running returns [ErrRunning] at once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if r.log == nil { // set by New
		return errZero
	}
	if !r.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer r.running.Store(false)
	r.log.DebugContext(ctx, "starting", "capabilities", r.caps, "streamingList", r.streaming, "resyncPeriod", r.resyncPeriod)
	for ctx.Err() == nil {
		next := r.listAndWatch(ctx)
		if ctx.Err() != nil {
			continue
		}
		r.counters.countRelist(next)
		if !next.afterBackoff {
			continue
		}
		r.report(ctx, next.cause)
		sleep(ctx, r.backoff.delay(time.Now(), r.rand))
	}
	r.log.DebugContext(ctx, "stopped", "resourceVersion", r.LastSyncResourceVersion())
	return nil
}

// listAndWatch fills the store and then watches until a relist is needed,
// and says how to relist.
func (r *Reflector[T]) listAndWatch(ctx context.Context) relist {
	w, err := r.sync(ctx)
	if err != nil {
		return relistAfter(err)
	}
	return r.watch(ctx, w)
}

// report hands err to the error handler, or logs it.
func (r *Reflector[T]) report(ctx context.Context, err error) {
	if r.onError != nil {
		r.onError(ctx, err)
		return
	}
	level := slog.LevelError
	switch {
	case errors.Is(err, ErrExpired):
		level = slog.LevelInfo
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrShortWatch):
		level = slog.LevelWarn
	}
	r.log.Log(ctx, level, "reflector error", "err", err)
}

// watchTimeout returns a random timeout in [minWatchTimeout,
// 2*minWatchTimeout).
func (r *Reflector[T]) watchTimeout() time.Duration {
	return r.minWatchTimeout + durationOf(r.rand()*float64(r.minWatchTimeout))
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
