package informer

import (
	"context"
	"log/slog"
	"time"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

// MinResyncPeriod is the shortest resync period a handler can have;
// shorter positive periods are raised to it.
const MinResyncPeriod = time.Second

// Options configures an Informer. The zero value is ready to use: no
// resync, no secondary index, keys from keys.Of, no
// transform, unbounded handler buffers, errors and panics logged to
// slog.Default().
type Options[T keys.Object] struct {
	// Name identifies the informer in logs, errors and WaitForCacheSync
	// reports. The default is the name of the type T (for example
	// "*v1.Pod").
	Name string
	// Logger receives the informer's log records. The default is
	// slog.Default().
	Logger *slog.Logger

	// ResyncPeriod is the default resync period of handlers and the
	// period at which the informer checks whether any handler is due. Zero
	// disables resyncs for every handler, whatever its own period
	// (client-go's rule). See HandlerOptions.ResyncPeriod.
	ResyncPeriod time.Duration

	// KeyFunc computes cache keys; nil means keys.Of.
	KeyFunc keys.Func[T]
	// Indexers are the secondary indexes of the cache.
	Indexers indexer.Indexers[T]

	// Transform, if set, is applied to every object the source delivers
	// before it is queued and cached, on the reflector's goroutine: use it
	// to drop fields the program never reads. It is not applied to objects
	// the informer already holds (resyncs, inferred deletions). An error
	// makes the reflector report it and relist; an object that can never
	// be transformed keeps the informer from syncing. To cache a different
	// type than the source's, use NewProjected. Transform may edit the
	// object in place: with a Transform the informer's lists and watches
	// are not ReadOnly (reflector.ListOptions), and a source that shares
	// parts among its objects (reflector.Sharer) shares them only as they
	// are cached, after it.
	Transform func(T) (T, error)

	// Equal, if set, suppresses updates whose new state is Equal to the
	// old one, beyond the resource-version check that marks resyncs: the
	// cache stores the new state, but no handler is told. Resyncs (same
	// resource version) are not suppressed; they reach the handlers whose
	// resync is due. Equal runs on the goroutine that applies the change
	// to the cache: the informer's processing goroutine, or its
	// reflector's (see the package documentation).
	Equal func(old, new T) bool

	// ErrorHandler is called with every error the informer meets and
	// recovers from: failed lists and watches (see
	// reflector.Options.ErrorHandler), objects whose key function failed
	// (the object is skipped), objects an index function failed on (the
	// object is cached, left out of that index, and reported once until a
	// version of it indexes cleanly: see Stats), handler panics (a
	// *HandlerPanicError; the notification is skipped), and modified
	// cached objects (a *CacheMutationError; see MutationDetector). It
	// must return quickly and must not call the informer's methods that
	// add or remove handlers. The default logs to Logger.
	ErrorHandler func(ctx context.Context, err error)

	// Buffer is the default buffer of handlers that do not set
	// HandlerOptions.Buffer; the zero value is unbounded.
	Buffer BufferOptions

	// Reflector tunes the reflector: paging, streaming lists, watch
	// timeouts, backoff. The informer sets the reflector's other options
	// from the fields above.
	Reflector reflector.Tuning

	// Metrics, if not nil, is called once, by the constructor, with the
	// informer's name and its Stats method, for a metrics exporter to read
	// the informer's counters and gauges whenever it collects them (the
	// module github.com/typedcache/typedcache/prometheus has one for
	// Prometheus). The informer keeps its counters whether or not Metrics
	// is set, at no cost to the paths of watch events beyond an atomic
	// add. stats may be called at any time from any goroutine, also after
	// the informer stopped.
	Metrics func(name string, stats func() Stats)

	// MutationDetector configures the cache mutation detector, a test aid
	// that is off by default; MutationDetectorEnv turns it on too.
	MutationDetector MutationDetector[T]
}

// Overflow says what a bounded handler buffer does when it is full.
type Overflow uint8

const (
	// Block makes the informer wait until the handler has taken
	// notifications out of its buffer. A slow handler then holds up the
	// cache and every other handler of the informer (the package
	// documentation details what waits and what does not): choose it
	// only when memory matters more than latency.
	Block Overflow = iota
	// Coalesce makes a full buffer merge each new notification with the
	// one still pending for the same key, so that the handler skips
	// intermediate states and sees the latest one: an add then updates
	// become one add of the last state, updates become one update from
	// the oldest to the newest state, an add then its deletion vanish,
	// an update then a deletion become the deletion, and a deletion then
	// a re-creation become an update. The handler's view of the cache
	// stays exact; notifications for one key stay in order, but a merged
	// notification keeps the place of the first one it absorbed. The
	// overflow holds at most one notification per key, so its memory is
	// bounded by the number of keys rather than events. The informer never
	// waits.
	Coalesce
)

// String returns the policy's name.
func (o Overflow) String() string {
	switch o {
	case Block:
		return "Block"
	case Coalesce:
		return "Coalesce"
	}
	return "Overflow(invalid)"
}

// BufferOptions configure a handler's buffer of pending notifications.
// The zero value is an unbounded buffer, like client-go's.
type BufferOptions struct {
	// Size bounds the number of notifications pending for the handler:
	// waiting in its buffer, or taken by its goroutine and not yet
	// delivered, the one being handled included. Zero or negative means
	// unbounded (in HandlerOptions, zero means Options.Buffer). The replay
	// a handler added after Run started receives is not bounded: it holds
	// one notification per cached object.
	Size int
	// Overflow is what happens when Size notifications are waiting.
	Overflow Overflow
}

// HandlerOptions configure one registration. The zero value gives the
// informer's defaults.
type HandlerOptions struct {
	// Name identifies the handler in logs, panics and sync reports. The
	// default is the informer's name followed by "#" and the
	// registration's sequence number.
	Name string
	// ResyncPeriod is how often the handler wants to receive every cached
	// object again, as an update with identical old and new states. Zero
	// means Options.ResyncPeriod and a negative value means never.
	// Positive periods are raised to MinResyncPeriod, and, for handlers
	// added after Run started, to the informer's check period; a handler
	// added before Run with a period shorter than the check period lowers
	// it (client-go's rules).
	ResyncPeriod time.Duration
	// Buffer bounds the handler's buffer; the zero value means
	// Options.Buffer.
	Buffer BufferOptions
}

// MetricsProvider hands an informer's counters to a metrics exporter: the
// type of [Options.Metrics] and [FactoryOptions.Metrics]. It is called
// once, by the informer's constructor, with the informer's name and its
// Stats method. A metrics exporter's method with this signature, such as
// the Informer method of the module
// github.com/typedcache/typedcache/prometheus's Provider, is one:
//
//	factory := informer.NewFactory(informer.FactoryOptions{Metrics: provider.Informer})
type MetricsProvider func(name string, stats func() Stats)
