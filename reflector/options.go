package reflector

import (
	"context"
	"log/slog"
	"time"
)

// Defaults used where a Tuning field is left zero. The first two are
// client-go's; client-go has no idle timeout for streaming lists.
const (
	defaultPageSize                 = 500
	defaultMinWatchTimeout          = 5 * time.Minute
	defaultStreamingListIdleTimeout = 5 * time.Second
)

// Options configures a Reflector. The zero value gives client-go's
// defaults, except for the backoff (see Backoff) and for streaming lists,
// which are used only when the source declares them and are given up for
// lists when they stall (see Tuning.StreamingListIdleTimeout).
type Options struct {
	// Name identifies the reflector in logs. The default is the name of the
	// type T (for example "*v1.Pod").
	Name string
	// Logger receives the reflector's log records, with a "reflector"
	// attribute holding Name. The default is slog.Default().
	Logger *slog.Logger

	// ResyncPeriod is how often the reflector asks the store to Resync. Zero
	// disables resyncs. The timer starts when the store has been filled by a
	// list, restarts after every tick, and starts again after every relist.
	ResyncPeriod time.Duration
	// ShouldResync is asked at every resync tick whether to call
	// Store.Resync; nil means always. It runs on the reflector's goroutine
	// and should return quickly.
	ShouldResync func() bool

	// ErrorHandler is called, on the reflector's goroutine, with every error
	// the reflector meets: failed lists and watches, watches that end too
	// soon, malformed events and items, store errors. The reflector retries
	// on its own afterwards; the handler only observes (client-go calls this
	// the WatchErrorHandler). It should return quickly. The default logs the
	// error at level Error; ErrMalformed and ErrShortWatch at Warn,
	// ErrExpired at Info.
	ErrorHandler func(ctx context.Context, err error)

	// ReadOnly promises that the store never modifies the objects it
	// receives, nor lets anyone else: the reflector passes it on to every
	// List and Watch (ListOptions.ReadOnly), so that the source may make
	// the objects share memory where they are equal.
	ReadOnly bool

	// Tuning adjusts how the reflector lists, watches and retries.
	Tuning
}

// Tuning adjusts how a reflector lists, watches and retries: the part of
// its Options that an informer, which sets the rest itself, lets its user
// choose (informer.Options.Reflector). The zero value is the default of
// each field.
type Tuning struct {
	// PageSize is the number of items asked for per page when listing from
	// a source with Capabilities.Pagination. Zero means 500, with
	// client-go's rule that a relist at a specific resource version is not
	// paginated unless the first list came back in several pages. A
	// positive value paginates every list; a negative value none.
	PageSize int64
	// DisableStreamingList makes the reflector list even when the source has
	// Capabilities.StreamingList.
	DisableStreamingList bool
	// StreamingListIdleTimeout is how long a streaming list may go without
	// any event before the end of its initial events: a source that
	// declares streaming lists but never ends them (client-go's fake
	// clients, servers that ignore the request) is then listed instead,
	// with one warning in the log, and never asked to stream again. Every
	// event counts, so a long initial list that keeps arriving is never
	// cut. Zero means 5 seconds; a negative value waits for the end of the
	// initial events as long as the watch timeout the reflector asked for.
	StreamingListIdleTimeout time.Duration
	// MinWatchTimeout raises the shortest watch timeout above its default,
	// 5 minutes; smaller values are ignored. Each watch asks the source for
	// a random timeout in [MinWatchTimeout, 2*MinWatchTimeout], which
	// spreads reconnections over time.
	MinWatchTimeout time.Duration

	// Backoff paces retries after failures. Its zero value retries faster
	// than client-go after short outages; see Backoff.
	Backoff Backoff
}

// Backoff paces the retries of a reflector whose source fails.
//
// An outage begins with a failure after the source was last healthy, and
// ends when the source is healthy again: a watch delivered an event (a
// bookmark included) or stayed open for a second. A successful list does
// not end it, so that a source whose watches fail, or expire, right after
// every list is not listed again and again at the shortest delay.
//
// During an outage, each retry waits (Factor-1) times as long as the outage
// has lasted, at least Initial and at most Max, stretched by a random
// fraction of up to Jitter of itself. Retries therefore come every Initial
// (with jitter) through the first Initial/(Factor-1) of an outage, and
// after that are exponentially spaced, each about Factor times as far into
// the outage as the one before, until they are Max apart. Once the source
// answers again, the reflector is back within (1+Jitter) times
// max(Initial, (Factor-1) times the outage's length): short outages are
// short for the reflector too, however many came before.
//
// Zero fields take the defaults: the zero Backoff retries every 0.8 to 1.6
// seconds through the first 8 seconds of an outage, then waits 10% to 20%
// of the outage so far, up to 30 to 60 seconds from its fifth minute on.
// client-go uses the same first delay, cap and jitter, but doubles the
// delay at every failure and starts again from 0.8 seconds only when two
// minutes have passed since it last did; see the package documentation.
type Backoff struct {
	// Initial is the shortest delay; the default is 800ms.
	Initial time.Duration
	// Max caps the delay before jitter; the default is 30s. A Max below
	// Initial is raised to Initial.
	Max time.Duration
	// Factor sets how fast delays grow with the length of an outage: a
	// retry waits (Factor-1) times the outage so far. The default is 1.1;
	// 2 doubles every delay, as client-go does. Values below 1 are treated
	// as 1: a constant delay of Initial.
	Factor float64
	// Jitter is the largest random fraction added to each delay; the
	// default is 1.0 (up to double). A negative value disables jitter.
	Jitter float64
}

// withDefaults returns b with its zero fields set to the defaults.
func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 800 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	b.Max = max(b.Max, b.Initial)
	switch {
	case b.Factor == 0:
		b.Factor = 1.1
	case b.Factor < 1:
		b.Factor = 1
	}
	switch {
	case b.Jitter == 0:
		b.Jitter = 1
	case b.Jitter < 0:
		b.Jitter = 0
	}
	return b
}
