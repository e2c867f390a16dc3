package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/informer"
)

// DefaultGracefulShutdownTimeout is how long a Manager waits for what it
// started to stop once its context ends, when
// ManagerOptions.GracefulShutdownTimeout is zero: controller-runtime's
// default.
const DefaultGracefulShutdownTimeout = 30 * time.Second

var (
	// ErrShutdownTimeout is wrapped by the error of a Manager.Run whose
	// graceful shutdown timed out; the error names what had not stopped.
	ErrShutdownTimeout = errors.New("controller: graceful shutdown timed out")
	// ErrLeadershipLost is wrapped by the error of a Manager.Run whose
	// Elector returned while the manager was running: leadership was lost
	// (the Elector's error, such as kube/leader's ErrLost, is wrapped
	// too), or the campaign ended.
	ErrLeadershipLost = errors.New("controller: leader election ended")
)

// ManagerOptions configures a Manager. The zero value means no leader
// election, no HTTP endpoints and a graceful shutdown of
// DefaultGracefulShutdownTimeout.
type ManagerOptions struct {
	// Elector, if not nil, runs the leader-only runnables (see Add) on
	// the elected replica only: kube/leader's *Elector. A Sharder, such
	// as kube/shard's *Shard, runs them on every replica instead, and
	// shards the keys of every Controller among them: before anything
	// starts, Run gives each leader-only Controller its ShardGate, and
	// fails if one cannot be sharded (ErrNoKeyName).
	Elector Elector
	// GracefulShutdownTimeout is how long Run waits, once its context
	// ended or a runnable failed, for the runnables and then the
	// informers to stop. Zero means DefaultGracefulShutdownTimeout;
	// negative means no limit.
	GracefulShutdownTimeout time.Duration

	// Addr is the TCP address ("host:port", ":8081") on which Run serves
	// /healthz, /readyz and, with Metrics, /metrics. Empty means no HTTP
	// endpoints, unless Listener is set.
	Addr string
	// Listener, if not nil, is used instead of Addr (a loopback listener
	// in tests). Run closes it when it returns.
	Listener net.Listener
	// Metrics, if not nil, serves /metrics: the prometheus module's
	// handler, for example. It needs Addr or Listener.
	Metrics http.Handler
}

// A Manager runs a program's controllers and the informers they share,
// and serves their health: it is what a main function hands its
// controllers to, as with controller-runtime's manager.
//
//	factory := informer.NewFactory(informer.FactoryOptions{})
//	pods := informer.For(factory, src) // controllers create their informers
//	m := controller.NewManager(factory, controller.ManagerOptions{Addr: ":8081"})
//	m.Add(podController)
//	err := m.Run(ctx) // until ctx ends (signal.NotifyContext)
//
// # Semantics
//
// Run starts the HTTP endpoints, then the factory's informers (created
// before Run, typically by the controllers' constructors), waits until
// they have synced, and then runs every runnable given to Add on a
// goroutine of its own. With an Elector, the leader-only runnables run
// inside the Elector's Run, that is only while this replica is elected;
// the others, like the informers, run on every replica, so that a replica
// that becomes leader has its caches warm. A runnable is leader-only
// unless it implements LeaderElectionRunnable and NeedLeaderElection
// reports false.
//
// Run returns nil when its context ends, and otherwise the first error:
// of a runnable, of the informers' sync, of the HTTP server, or
// ErrLeadershipLost when the Elector returned, for example because
// leadership was lost. The first error stops everything else. Either
// way Run stops the runnables first, then the informers (Factory.Shutdown),
// then the HTTP server, and returns only after all of them have exited;
// its error joins, with errors.Join, the first error, those of the
// runnables that failed while stopping, and every error of the informers
// (Factory.Shutdown's: a *informer.CacheMutationError for each modified
// object the mutation detector found). A runnable that returns its
// context's error once that context ended is taken to have stopped
// cleanly. If the runnables or the informers have not stopped within
// ManagerOptions.GracefulShutdownTimeout, Run returns an error wrapping
// ErrShutdownTimeout that names them, and leaves them behind.
//
// Health. With an address or a listener, Run serves on one HTTP server:
//
//   - /healthz, liveness: passes while Run runs, and the checks added with
//     AddHealthzCheck pass;
//   - /readyz, readiness: passes once the informers have synced, every
//     running runnable that is a Syncer has synced, the replica knows its
//     role in the election (see LeaderReporter), and the checks added with
//     AddReadyzCheck pass; it fails again once Run begins to stop;
//   - /healthz/NAME and /readyz/NAME run one check;
//   - /metrics, ManagerOptions.Metrics.
//
// A failing endpoint answers 500 and lists each check as "[+]name ok" or
// "[-]name failed: reason", as the Kubernetes API server and
// controller-runtime do; a passing one answers 200 "ok", or the list with
// the query parameter verbose. The built-in readiness checks are
// "manager" (the informers have synced and Run is not stopping),
// "runnables" and, with an Elector, "leader-election".
//
// # Concurrency
//
// A Manager is safe for simultaneous use by multiple goroutines. Add must
// be called before Run; AddHealthzCheck and AddReadyzCheck may be called
// at any time. Run runs once; every goroutine it starts has exited when
// it returns, except those it names in an ErrShutdownTimeout error.
//
// # Differences from controller-runtime
//
//   - Runnables cannot be added once Run has begun.
//   - Losing leadership makes Run return an error instead of exiting the
//     process; main decides.
//   - Readiness includes the informers' and the runnables' sync and the
//     election role; controller-runtime's has only the checks added.
//   - One listener serves health and metrics.
type Manager struct {
	factory *informer.Factory
	opts    ManagerOptions

	mu        sync.Mutex
	runnables []*entry
	started   bool
	healthz   checks
	readyz    checks

	// stopping is closed when Run begins to stop: the context of its
	// runnables ended. It is set, under mu, when Run starts.
	stopping <-chan struct{}
	// synced is set once the informers have synced and the runnables
	// that run at once are marked running.
	synced atomic.Bool
	// leading is set while the leader-only runnables run.
	leading atomic.Bool
}

// entry is a runnable as a Manager runs it.
type entry struct {
	r      Runnable
	name   string
	leader bool // runs on the elected replica only
	// running is set while r.Run runs.
	running atomic.Bool
}

// NewManager returns a Manager that runs factory's informers and the
// runnables given to Add. factory may be nil when the runnables run their
// informers themselves.
func NewManager(factory *informer.Factory, opts ManagerOptions) *Manager {
	return &Manager{factory: factory, opts: opts}
}

// Add adds r to the runnables Run runs. With an Elector, r runs on the
// elected replica only, unless it is a LeaderElectionRunnable whose
// NeedLeaderElection reports false. Add returns ErrStarted once Run has
// been called, and an error for a nil r.
func (m *Manager) Add(r Runnable) error {
	if r == nil {
		return errors.New("controller: Add: nil runnable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return fmt.Errorf("controller: Add %s: %w", nameOf(r, len(m.runnables)), ErrStarted)
	}
	m.runnables = append(m.runnables, &entry{r: r, name: nameOf(r, len(m.runnables)), leader: needsLeader(r)})
	return nil
}

// shutdownTimeout returns the graceful shutdown timeout; not positive
// means none.
func (m *Manager) shutdownTimeout() time.Duration {
	if t := m.opts.GracefulShutdownTimeout; t != 0 {
		return t
	}
	return DefaultGracefulShutdownTimeout
}

// shutdownContext returns a context that ends at the graceful shutdown
// timeout, if any.
func (m *Manager) shutdownContext() (context.Context, context.CancelFunc) {
	if t := m.shutdownTimeout(); t > 0 {
		return context.WithTimeout(context.Background(), t)
	}
	return context.WithCancel(context.Background())
}
