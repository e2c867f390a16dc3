package informer

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/internal/fanout"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

// Informer keeps a cache of the objects of one source and tells any number
// of handlers about every change to it. See the package documentation for
// its semantics.
//
// An Informer is safe for simultaneous use by multiple goroutines. Use New
// or NewProjected (or For) to create one; Run drives it. A zero Informer
// reads as empty, and its methods that return an error return one that
// names the constructors.
type Informer[T keys.Object] struct {
	name          string
	logger        *slog.Logger
	onError       func(context.Context, error)
	equal         func(old, new T) bool
	defaultResync time.Duration
	defaultBuffer BufferOptions
	reflectorOpts reflector.Tuning

	cache *indexer.Indexer[T]
	fifo  *deltafifo.DeltaFIFO[T]
	// fifoKey and transform are the FIFO's key function and transform,
	// which route and routeList apply themselves to the watch events and
	// lists they apply.
	fifoKey   keys.Func[T]
	transform func(T) (T, error)
	// share is the source's reflector.Sharer, nil if it has none; see
	// applyDelta.
	share func(T) T
	// newReflector builds the reflector feeding fifo, in Run, once the
	// resync check period is final.
	newReflector func(reflector.Options) runner

	// mu guards started, stopped, refl, check and sequence, and
	// serialises changes to listeners; stoppedCh is closed under it. The
	// lock order is mu, then deltaMu (a handler added after Run takes
	// both), then a listener's own locks (see internal/fanout), which
	// guard its buffer and its resync schedule.
	mu      sync.Mutex
	started bool
	stopped bool
	// runCtx is Run's context. Run sets it before it starts any goroutine
	// that reads it, and never changes it again, so those read it without
	// the lock.
	runCtx   context.Context
	refl     runner
	check    time.Duration // resync check period
	sequence int           // registrations made, for generated names

	// stoppedCh is closed when the informer stops.
	stoppedCh chan struct{}
	// stopErr, if set, is why the informer stopped without running
	// (ErrFactoryShutDown, or a cache mutation detector that cannot work);
	// it is set under mu, or by the constructor, before stoppedCh is
	// closed and never changes after.
	stopErr error

	// detector is the cache mutation detector, nil when it is off; set by
	// the constructor.
	detector *detector[T]

	// deltaMu guards the cache's writes and isSynced's change: it is held
	// while a batch of deltas (or a watch event or a batch of a list, see
	// route.go) is applied to the cache and the listeners to notify are
	// read, and while a handler added after Run is pushed the replay of
	// the cache and joins the listeners: the replay and the stream of
	// notifications that follows it never overlap or leave a gap. It is
	// taken after mu, never before, and never held while waiting for a
	// handler: the notifications of a batch are pushed after it is
	// released, and a watch event's, pushed under it, only to a listener
	// that never blocks.
	deltaMu sync.Mutex
	// listeners is the current set of listeners, replaced (copy on write)
	// under mu, and under deltaMu too for additions after Run started.
	listeners atomic.Pointer[[]*fanout.Listener[T]]
	// scratch is the processing goroutine's reusable notification buffer;
	// only that goroutine uses it.
	scratch []fanout.Notification[T]
	// isSynced mirrors synced being closed; set under deltaMu.
	isSynced atomic.Bool
	synced   chan struct{}
	// indexFailures tracks the cached objects an index function failed
	// on; see indexfailures.go.
	indexFailures indexFailures

	// wg counts the listener goroutines.
	wg sync.WaitGroup
}

// runner is a reflector of any source type.
type runner interface {
	Run(ctx context.Context) error
	LastSyncResourceVersion() string
	Stats() reflector.Stats
}

// New returns an Informer that mirrors src. Without opts.Transform, its
// lists and watches are ReadOnly (reflector.ListOptions): the source may
// share memory among the objects it delivers. With one, if src is a
// reflector.Sharer, the objects of lists and creations go through its
// Share after the Transform, as they are cached. New panics if src is nil
// or an index function in opts.Indexers is nil.
func New[T keys.Object](src reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	if src == nil {
		panic("informer: New called with a nil source")
	}
	inf := newInformer(opts)
	if s, ok := src.(reflector.Sharer[T]); ok && opts.Transform != nil {
		inf.share = s.Share
	}
	inf.newReflector = func(ro reflector.Options) runner {
		// Without a Transform nothing edits an object on its way from the
		// source to the cache, where it is read-only.
		ro.ReadOnly = opts.Transform == nil
		return reflector.New(src, source[T]{inf}, ro)
	}
	return inf
}

// NewProjected returns an Informer that mirrors src, a source of a type S
// the program does not want to keep, by caching project(s) for every
// object s: typically a small struct with the few fields the program
// reads. Handlers, listers and indexes see only T. project runs on the
// reflector's goroutine for every object the source delivers; it must
// keep the namespace, name and resource version. An error makes the
// reflector report it and relist; an object that can never be projected
// keeps the informer from syncing. opts.Transform, if set, runs after
// project. NewProjected panics if src or project is nil.
func NewProjected[S, T keys.Object](src reflector.ListerWatcher[S], project func(S) (T, error), opts Options[T]) *Informer[T] {
	if src == nil || project == nil {
		panic("informer: NewProjected called with a nil source or projection")
	}
	inf := newInformer(opts)
	inf.newReflector = func(ro reflector.Options) runner {
		return reflector.New(src, projectingStore[S, T]{project, source[T]{inf}}, ro)
	}
	return inf
}

// newInformer builds everything but the reflector.
func newInformer[T keys.Object](opts Options[T]) *Informer[T] {
	keyFunc := opts.KeyFunc
	if keyFunc == nil {
		keyFunc = keys.Of[T]
	}
	inf := &Informer[T]{
		name:          opts.Name,
		logger:        opts.Logger,
		onError:       opts.ErrorHandler,
		equal:         opts.Equal,
		defaultResync: max(opts.ResyncPeriod, 0),
		defaultBuffer: opts.Buffer,
		reflectorOpts: opts.Reflector,
		check:         max(opts.ResyncPeriod, 0),
		stoppedCh:     make(chan struct{}),
		synced:        make(chan struct{}),
	}
	if inf.name == "" {
		inf.name = reflect.TypeFor[T]().String()
	}
	if inf.logger == nil {
		inf.logger = slog.Default()
	}
	inf.logger = inf.logger.With("informer", inf.name)
	if inf.onError == nil {
		inf.onError = inf.logError
	}
	inf.cache = indexer.New(keyFunc, opts.Indexers)
	inf.fifoKey, inf.transform = keyFunc, opts.Transform
	if opts.KeyFunc == nil {
		// Most events are about cached objects: reuse their key strings.
		inf.fifoKey = indexer.KeyFunc(inf.cache)
	}
	inf.fifo = deltafifo.New(inf.fifoKey, deltafifo.Options[T]{
		KnownObjects: inf.cache,
		Transform:    opts.Transform,
	})
	inf.listeners.Store(new([]*fanout.Listener[T]))
	if opts.Metrics != nil {
		opts.Metrics(inf.name, inf.Stats)
	}
	inf.initDetector(opts.MutationDetector)
	return inf
}

// logError is the default ErrorHandler. A handler panic is logged with
// its stack.
func (inf *Informer[T]) logError(ctx context.Context, err error) {
	if pe, ok := errors.AsType[*HandlerPanicError](err); ok {
		inf.logger.ErrorContext(ctx, "handler panicked", "err", err, "stack", string(pe.Stack))
		return
	}
	inf.logger.ErrorContext(ctx, "informer error", "err", err)
}

// Name returns the informer's name (Options.Name or the type's name).
func (inf *Informer[T]) Name() string { return inf.name }

// HasSynced reports whether the informer has applied the first complete
// list of its source to the cache and handed every resulting notification
// to its handlers' buffers. Whether each handler has processed them is
// its Registration's HasSynced.
func (inf *Informer[T]) HasSynced() bool { return inf.isSynced.Load() }

// WaitForSync blocks until HasSynced reports true and returns nil. It
// returns ctx.Err() if ctx ends first, and ErrStopped if the informer
// stops first.
func (inf *Informer[T]) WaitForSync(ctx context.Context) error {
	if inf.zero() {
		return errZero
	}
	err := waitSynced(ctx, inf.synced, inf.stoppedCh, nil)
	if err == ErrStopped {
		inf.mu.Lock()
		err = inf.stoppedErrLocked()
		inf.mu.Unlock()
	}
	return err
}

// stoppedErrLocked returns the error that calls made after the informer
// stopped report.
func (inf *Informer[T]) stoppedErrLocked() error {
	if inf.stopErr != nil {
		return inf.stopErr
	}
	return ErrStopped
}

// neverRun stops an informer that has not run and never will, for cause.
// It does nothing if the informer has started.
func (inf *Informer[T]) neverRun(cause error) {
	inf.mu.Lock()
	if inf.started || inf.stopped {
		inf.mu.Unlock()
		return
	}
	inf.stopErr = cause
	inf.mu.Unlock()
	inf.stop()
}

// LastSyncResourceVersion returns the resource version of the last list
// or event the reflector applied, or "" before Run's first list. The
// cache may not reflect it yet.
func (inf *Informer[T]) LastSyncResourceVersion() string {
	inf.mu.Lock()
	refl := inf.refl
	inf.mu.Unlock()
	if refl == nil {
		return ""
	}
	return refl.LastSyncResourceVersion()
}

// Lister returns a typed, read-only view of the cache. Its Get looks
// objects up by namespace and name, which requires the default key function;
// with another key function, use Cache().GetByKey.
func (inf *Informer[T]) Lister() indexer.Lister[T] { return indexer.NewLister(inf.cache) }

// Cache returns a read-only view of the informer's cache.
func (inf *Informer[T]) Cache() Cache[T] {
	if inf.cache == nil { // a zero Informer
		return Cache[T]{new(indexer.Indexer[T])}
	}
	return Cache[T]{inf.cache}
}

// AddIndexers adds secondary indexes to the cache, indexing the objects
// already cached. It fails with ErrStopped once the informer has stopped,
// and as indexer.Indexer.AddIndexers does otherwise.
func (inf *Informer[T]) AddIndexers(indexers indexer.Indexers[T]) error {
	if inf.zero() {
		return errZero
	}
	inf.mu.Lock()
	stopped, err := inf.stopped, inf.stoppedErrLocked()
	inf.mu.Unlock()
	if stopped {
		return err
	}
	return inf.cache.AddIndexers(indexers)
}
