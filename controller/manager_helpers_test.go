package controller_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// Pod is a minimal object for memsource.
type Pod struct {
	Namespace, Name, ResourceVersion string
	Image                            string
}

func (p *Pod) GetNamespace() string        { return p.Namespace }
func (p *Pod) GetName() string             { return p.Name }
func (p *Pod) GetResourceVersion() string  { return p.ResourceVersion }
func (p *Pod) SetResourceVersion(v string) { p.ResourceVersion = v }

// DeepCopy makes *Pod copyable by memsource and the mutation detector.
func (p *Pod) DeepCopy() *Pod {
	c := *p
	return &c
}

// fake is a Runnable, a Syncer and a LeaderElectionRunnable. Run may be
// called once.
type fake struct {
	name    string
	always  bool          // runs on every replica
	started chan struct{} // closed when Run starts
	ctxDone chan struct{} // closed when Run sees its context end
	exited  chan struct{} // closed when Run returns
	fail    chan error    // an error sent here is returned by Run
	// release, if not nil, keeps Run from returning after its context
	// ended until it is closed.
	release chan struct{}
	// stopErr is returned when the context ends.
	stopErr error
	synced  atomic.Bool
	// atStart runs first thing in Run.
	atStart func()
}

func newFake(name string) *fake {
	return &fake{name: name, started: make(chan struct{}), ctxDone: make(chan struct{}), exited: make(chan struct{}), fail: make(chan error, 1)}
}

func (f *fake) Name() string             { return f.name }
func (f *fake) HasSynced() bool          { return f.synced.Load() }
func (f *fake) NeedLeaderElection() bool { return !f.always }

func (f *fake) Run(ctx context.Context) error {
	defer close(f.exited)
	if f.atStart != nil {
		f.atStart()
	}
	close(f.started)
	select {
	case err := <-f.fail:
		return err
	case <-ctx.Done():
		close(f.ctxDone)
	}
	if f.release != nil {
		<-f.release
	}
	return f.stopErr
}

// isClosed reports whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// gatedSource is a memsource whose lists and watches wait until open is
// closed.
type gatedSource struct {
	*memsource.Source[*Pod]
	open chan struct{}
}

func (s gatedSource) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[*Pod], error) {
	select {
	case <-s.open:
	case <-ctx.Done():
		return reflector.ListResult[*Pod]{}, ctx.Err()
	}
	return s.Source.List(ctx, opts)
}

func (s gatedSource) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*Pod], error) {
	select {
	case <-s.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Source.Watch(ctx, opts)
}

// loopback returns a listener on a free loopback port and a client for
// it that keeps no idle connections (so that no goroutine outlives a
// test).
func loopback(t *testing.T) (net.Listener, *http.Client, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return lis, &http.Client{Transport: tr}, "http://" + lis.Addr().String()
}

// get returns the status code and body of a GET of url.
func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// errBoom is a runnable's failure.
var errBoom = errors.New("boom")
