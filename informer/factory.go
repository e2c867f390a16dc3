package informer

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

// FactoryOptions are the defaults a Factory gives the informers it
// creates, for the Options fields those leave zero. The zero value adds
// nothing to Options' own defaults.
type FactoryOptions struct {
	// ResyncPeriod is the default Options.ResyncPeriod.
	ResyncPeriod time.Duration
	// Logger is the default Options.Logger.
	Logger *slog.Logger
	// ErrorHandler is the default Options.ErrorHandler.
	ErrorHandler func(ctx context.Context, err error)
	// Buffer is the default Options.Buffer.
	Buffer BufferOptions

	// Metrics is the default Options.Metrics: set it to export the
	// metrics of every informer of the factory.
	Metrics MetricsProvider
}

// Factory holds one informer per source, shared by every controller of a
// program that asks for the objects of that source, and runs them
// together. Create informers with For or ForWithOptions, then Start the
// factory.
//
// The factory tells sources apart by their object type and their identity:
// a source that implements reflector.Identifier with a non-empty Identity
// shares its informer with every source of the same type and the same
// Identity; any other source shares it only with itself (the same source
// value, compared with ==; a source value that cannot be compared gets a
// new informer every time). So a factory never hands back an informer fed
// by another source, and one factory can hold, for example, informers for
// two resources of the Kubernetes metadata client, whose objects have one
// Go type.
//
// A Factory is safe for simultaneous use by multiple goroutines. Its zero
// value is an empty factory with the default options, as
// NewFactory(FactoryOptions{}) returns.
type Factory struct {
	opts FactoryOptions

	mu       sync.Mutex
	bySource map[sourceKey]member
	members  []member
	started  int // members[:started] have been started
	cancels  []context.CancelFunc
	shutdown bool
	// runErrs holds what the informers' Run returned, other than nil.
	runErrs []error
	wg      sync.WaitGroup
}

// member is an informer of any type, as the factory runs it.
type member interface {
	Syncer
	Run(ctx context.Context) error
	neverRun(cause error)
}

// sourceKey identifies the source of a factory's informer: its object type
// and its Identity, or the source value itself when it has none.
type sourceKey struct {
	typ reflect.Type
	id  string
	src any
}

// sourceKeyOf returns the key of src's informer, or false for a source
// that cannot be matched with any other (no Identity, and a value that
// cannot be compared).
func sourceKeyOf[T keys.Object](src reflector.ListerWatcher[T]) (sourceKey, bool) {
	k := sourceKey{typ: reflect.TypeFor[T]()}
	if s, ok := src.(reflector.Identifier); ok {
		if k.id = s.Identity(); k.id != "" {
			return k, true
		}
	}
	if !reflect.ValueOf(src).Comparable() {
		return k, false
	}
	k.src = src
	return k, true
}

// NewFactory returns an empty Factory.
func NewFactory(opts FactoryOptions) *Factory {
	return &Factory{opts: opts, bySource: make(map[sourceKey]member)}
}

// For returns the factory's informer for src, creating it with the
// factory's defaults on the first call for that source. Later calls for
// the same source (the same type and Identity, or the same source value;
// see Factory) return the same informer; a call for another source of the
// same type gets an informer of its own. For panics if f or src is nil.
func For[T keys.Object](f *Factory, src reflector.ListerWatcher[T]) *Informer[T] {
	return ForWithOptions(f, src, Options[T]{})
}

// ForWithOptions is For with options for the informer, used only if this
// call creates it; fields left zero take the factory's defaults. It
// panics if f or src is nil.
func ForWithOptions[T keys.Object](f *Factory, src reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	if f == nil {
		panic("informer: For called with a nil *Factory; create one with NewFactory")
	}
	if src == nil {
		panic("informer: For called with a nil source")
	}
	key, shared := sourceKeyOf(src)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bySource == nil { // a zero Factory
		f.bySource = make(map[sourceKey]member)
	}
	if m, ok := f.bySource[key]; ok && shared {
		// Every key holds T's type, and only this function stores into
		// the map, always an *Informer[T] under a key of T: the
		// assertion cannot fail.
		return m.(*Informer[T])
	}
	if opts.ResyncPeriod == 0 {
		opts.ResyncPeriod = f.opts.ResyncPeriod
	}
	if opts.Logger == nil {
		opts.Logger = f.opts.Logger
	}
	if opts.ErrorHandler == nil {
		opts.ErrorHandler = f.opts.ErrorHandler
	}
	if opts.Buffer == (BufferOptions{}) {
		opts.Buffer = f.opts.Buffer
	}
	if opts.Metrics == nil {
		opts.Metrics = f.opts.Metrics
	}
	inf := New(src, opts)
	if shared {
		f.bySource[key] = inf
	}
	f.members = append(f.members, inf)
	if f.shutdown {
		inf.neverRun(ErrFactoryShutDown)
	}
	return inf
}

// Start runs, each on its own goroutine, every informer created since the
// previous Start, until ctx ends or Shutdown. Call it again to start
// informers created later. Start does not block; after Shutdown it does
// nothing.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return
	}
	for _, m := range f.members[f.started:] {
		runCtx, cancel := context.WithCancel(ctx)
		f.cancels = append(f.cancels, cancel)
		f.wg.Go(func() {
			// ErrStarted: the informer was run outside the factory
			// already, and runs there.
			if err := m.Run(runCtx); err != nil && !errors.Is(err, ErrStarted) {
				f.mu.Lock()
				f.runErrs = append(f.runErrs, err)
				f.mu.Unlock()
			}
		})
	}
	f.started = len(f.members)
}

// Shutdown stops every informer the factory started and waits until all
// their goroutines have exited. Informers it had not started, and those
// For creates afterwards, are never started: waiting for them to sync
// fails at once with ErrFactoryShutDown. Shutdown is idempotent.
//
// It returns what the informers' Run returned other than nil, joined: a
// *CacheMutationError for each informer whose mutation detector found a
// modified object, or the reason a detector could not work
// (ErrCannotCopy). errors.As finds each; a test that checks Shutdown's
// error fails on them. Without a detector it returns nil.
func (f *Factory) Shutdown() error {
	f.mu.Lock()
	f.shutdown = true
	for _, cancel := range f.cancels {
		cancel()
	}
	for _, m := range f.members[f.started:] {
		m.neverRun(ErrFactoryShutDown)
	}
	f.mu.Unlock()
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.runErrs...)
}

// Name returns "informer.Factory".
func (f *Factory) Name() string { return "informer.Factory" }

// HasSynced reports whether every informer the factory started has
// synced.
func (f *Factory) HasSynced() bool {
	ms, _ := f.startedMembers()
	for _, m := range ms {
		if !m.HasSynced() {
			return false
		}
	}
	return true
}

// WaitForSync waits until every informer the factory started has
// synced. If ctx ends first, or an informer stops first, it returns an
// error naming the informers that had not synced (see the package
// function WaitForCacheSync). After Shutdown it also waits for the
// informers the factory never started, which fail with
// ErrFactoryShutDown. Before the factory has started any informer (no
// Start since For created them, or no For at all), it returns
// ErrFactoryNotStarted at once rather than report a sync of nothing.
func (f *Factory) WaitForSync(ctx context.Context) error {
	ms, ok := f.startedMembers()
	if !ok {
		return ErrFactoryNotStarted
	}
	syncers := make([]Syncer, len(ms))
	for i, m := range ms {
		syncers[i] = m
	}
	return WaitForCacheSync(ctx, syncers...)
}

// startedMembers returns the informers started so far, and after
// Shutdown every informer, since none will start. It reports false if
// none has started and the factory has not shut down.
func (f *Factory) startedMembers() ([]member, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return f.members[:len(f.members):len(f.members)], true
	}
	return f.members[:f.started:f.started], f.started > 0
}
