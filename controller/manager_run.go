package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// run is the state of one Manager.Run.
type run struct {
	m *Manager
	// stop ends the context of everything Run started, with the first
	// error as its cause.
	stop context.CancelCauseFunc
	// wg counts the goroutines of the runnables and of the Elector.
	wg sync.WaitGroup
	// electing is set while the Elector's Run runs.
	electing atomic.Bool

	mu   sync.Mutex
	errs []error // what failed, the first error first
}

// Run runs the manager until ctx ends or something fails, as the Manager
// documentation describes: it returns nil when ctx ended, or the first
// error joined with those that followed, always after everything it
// started has exited, unless the graceful shutdown timed out. A second
// call returns ErrStarted.
func (m *Manager) Run(ctx context.Context) error {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return ErrStarted
	}
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	m.started = true
	m.stopping = runCtx.Done()
	entries := m.runnables
	m.mu.Unlock()
	if err := m.shard(entries); err != nil {
		return err
	}

	lis, err := m.listen()
	if err != nil {
		return err
	}
	r := &run{m: m, stop: stop}

	var srv *http.Server
	var serving sync.WaitGroup
	if lis != nil {
		srv = &http.Server{Handler: m.handler()}
		serving.Go(func() {
			if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
				r.fail(fmt.Errorf("controller: serve: %w", err))
			}
		})
	}
	if m.factory != nil {
		// The informers outlive ctx: they stop after the runnables.
		m.factory.Start(context.WithoutCancel(ctx))
		if err := m.factory.WaitForSync(runCtx); err != nil && runCtx.Err() == nil {
			r.fail(err)
		}
	}
	if runCtx.Err() == nil {
		r.startAll(runCtx, entries)
	}
	<-runCtx.Done()
	return r.shutdown(entries, srv, &serving)
}

// shard gives each controller that runs under the Elector its gate, when
// the Elector is a Sharder.
func (m *Manager) shard(entries []*entry) error {
	s, ok := m.opts.Elector.(Sharder)
	if !ok {
		return nil
	}
	for _, e := range entries {
		if c, ok := e.r.(shardable); ok && e.leader {
			if err := c.shard(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// listen returns the listener of the HTTP endpoints, or nil for none.
func (m *Manager) listen() (net.Listener, error) {
	if m.opts.Listener != nil {
		return m.opts.Listener, nil
	}
	if m.opts.Addr == "" {
		return nil, nil
	}
	lis, err := net.Listen("tcp", m.opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("controller: listen: %w", err)
	}
	return lis, nil
}

// startAll starts the runnables: the leader-only ones inside the
// Elector's Run when there is an Elector, and all the others at once; it
// sets synced.
func (r *run) startAll(ctx context.Context, entries []*entry) {
	el := r.m.opts.Elector
	var now, leaders []*entry
	for _, e := range entries {
		if e.leader && el != nil {
			leaders = append(leaders, e)
		} else {
			now = append(now, e)
		}
	}
	r.start(ctx, &r.wg, now, &r.m.synced)
	if el != nil {
		r.electing.Store(true)
		r.wg.Go(func() {
			defer r.electing.Store(false)
			r.elect(ctx, el, leaders)
		})
	}
}

// start runs each entry on a goroutine counted by wg until ctx ends, and
// sets flag once they all count as running (so that readiness, which
// flag gates, never misses one). An error other than ctx's own makes the
// manager fail.
func (r *run) start(ctx context.Context, wg *sync.WaitGroup, entries []*entry, flag *atomic.Bool) {
	for _, e := range entries {
		e.running.Store(true)
	}
	flag.Store(true)
	for _, e := range entries {
		r.spawn(ctx, wg, e)
	}
}

// spawn runs e on a goroutine counted by wg until ctx ends.
func (r *run) spawn(ctx context.Context, wg *sync.WaitGroup, e *entry) {
	wg.Go(func() {
		defer e.running.Store(false)
		err := e.r.Run(ctx)
		if err == nil || (ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx)))) {
			return
		}
		r.fail(fmt.Errorf("controller: %s: %w", e.name, err))
	})
}

// fail records err; the first error stops everything.
func (r *run) fail(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	r.stop(err)
}

// shutdown waits for the runnables to return, then shuts the informers
// and the HTTP server down, all within the graceful shutdown timeout, and
// returns Run's error.
func (r *run) shutdown(entries []*entry, srv *http.Server, serving *sync.WaitGroup) error {
	deadline, cancel := r.m.shutdownContext()
	defer cancel()
	var stuck []string

	if !await(deadline, r.wg.Wait) {
		for _, e := range entries {
			if e.running.Load() {
				stuck = append(stuck, e.name)
			}
		}
		if r.electing.Load() {
			stuck = append(stuck, "leader election")
		}
	}
	var factoryErr error
	if f := r.m.factory; f != nil {
		res := make(chan error, 1)
		if await(deadline, func() { res <- f.Shutdown() }) {
			factoryErr = <-res
		} else {
			stuck = append(stuck, "informers")
		}
	}
	if srv != nil {
		if err := srv.Shutdown(deadline); err != nil {
			stuck = append(stuck, "HTTP server")
			srv.Close()
		}
		serving.Wait()
	}

	r.mu.Lock()
	errs := append(slices.Clone(r.errs), factoryErr)
	r.mu.Unlock()
	if len(stuck) > 0 {
		errs = append(errs, fmt.Errorf("%w after %v: still running: %s", ErrShutdownTimeout, r.m.shutdownTimeout(), strings.Join(stuck, ", ")))
	}
	return errors.Join(errs...)
}

// await runs wait on a goroutine of its own and reports whether it
// returned before ctx ended. If not, the goroutine exits once wait
// returns.
func await(ctx context.Context, wait func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait()
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}
