package source

import (
	"context"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/kube"
)

// ClientGo is an in-memory Kubernetes client for one resource over n
// fixture objects of a Kind: a client-go ListerWatcher, and through Kube
// a kube.Client[L], both answering from the same prepared lists and
// streaming the same watch. A List hands out a list of type L, as a
// generated client does after decoding; client-go's reflector and kube's
// List each copy its items into objects of their own. It declares that it
// does not support streaming lists (watch-list), so that client-go v0.37's
// reflector lists and then watches instead of waiting for an
// initial-events bookmark that never comes.
type ClientGo[T kube.Object, L kube.ListObject] struct {
	kind  fixture.Kind[T, L]
	n     int
	watch current[watch.Event]

	mu       sync.Mutex
	prepared L
	ready    bool  // prepared is the next List's answer
	hold     *hold // set by HoldNextList
}

var (
	_ cache.ListerWatcherWithContext = (*ClientGo[*corev1.ConfigMap, *corev1.ConfigMapList])(nil)
	_ cache.ListerWatcher            = (*ClientGo[*corev1.ConfigMap, *corev1.ConfigMapList])(nil)
)

// NewClientGo returns a source of kind's objects 0..n-1 at resource
// versions 1..n, listed at version n.
func NewClientGo[T kube.Object, L kube.ListObject](kind fixture.Kind[T, L], n int) *ClientGo[T, L] {
	s := &ClientGo[T, L]{kind: kind, n: n}
	s.watch.init()
	return s
}

// Prepare builds the answer of the next List, so that building it is not
// measured. Without it, List builds one itself.
func (s *ClientGo[T, L]) Prepare() {
	s.PrepareItems(s.kind.Set(s.n), strconv.Itoa(s.n))
}

// PrepareItems makes items, at resource version rv, the answer of the next
// List.
func (s *ClientGo[T, L]) PrepareItems(items []T, rv string) {
	list := s.kind.List(items, rv)
	s.mu.Lock()
	s.prepared, s.ready = list, true
	s.mu.Unlock()
}

// HoldNextList makes the next List wait, once called, until release is
// called (or its context ends): called is closed when it has been called.
// A benchmark uses it to start its timer at a relist that it triggered
// but that the reflector starts on its own goroutine after a backoff.
func (s *ClientGo[T, L]) HoldNextList() (called <-chan struct{}, release func()) {
	h := &hold{called: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.hold = h
	s.mu.Unlock()
	return h.called, func() { close(h.release) }
}

type hold struct{ called, release chan struct{} }

// list hands out the prepared list and forgets it, so that the source
// never keeps objects alive that only the cache should hold.
func (s *ClientGo[T, L]) list(ctx context.Context) (L, error) {
	s.mu.Lock()
	list, ready, h := s.prepared, s.ready, s.hold
	var zero L
	s.prepared, s.ready, s.hold = zero, false, nil
	s.mu.Unlock()
	if h != nil {
		close(h.called)
		select {
		case <-h.release:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	if !ready {
		list = s.kind.List(s.kind.Set(s.n), strconv.Itoa(s.n))
	}
	return list, nil
}

// ListWithContext hands out the prepared list, as a runtime.Object.
func (s *ClientGo[T, L]) ListWithContext(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
	return s.list(ctx)
}

// WatchWithContext opens a watch that streams what Send sends.
func (s *ClientGo[T, L]) WatchWithContext(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return clientGoWatch{s.watch.open()}, nil
}

// List is ListWithContext without a context.
func (s *ClientGo[T, L]) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context.
func (s *ClientGo[T, L]) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// IsWatchListSemanticsUnSupported tells client-go's reflector to list and
// watch rather than stream the initial list.
func (s *ClientGo[T, L]) IsWatchListSemanticsUnSupported() bool { return true }

// Kube returns the source as a kube.Client: the typed List and Watch of a
// generated client, over the same lists and watch as the ListerWatcher.
func (s *ClientGo[T, L]) Kube() kube.Client[L] { return kubeClient[T, L]{s} }

type kubeClient[T kube.Object, L kube.ListObject] struct{ s *ClientGo[T, L] }

func (c kubeClient[T, L]) List(ctx context.Context, _ metav1.ListOptions) (L, error) {
	return c.s.list(ctx)
}

func (c kubeClient[T, L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.s.WatchWithContext(ctx, opts)
}

// Watching waits until a consumer has opened a watch.
func (s *ClientGo[T, L]) Watching(ctx context.Context) error {
	_, err := s.watch.wait(ctx)
	return err
}

// Send sends one event to the current watch, waiting for the consumer to
// open one and for room in its buffer. It reports false if ctx ended or the
// watch was stopped first.
func (s *ClientGo[T, L]) Send(ctx context.Context, t watch.EventType, obj T) bool {
	p, err := s.watch.wait(ctx)
	if err != nil {
		return false
	}
	return p.send(ctx, watch.Event{Type: t, Object: obj})
}

// Expire ends the current watch with an Error event saying that its
// resource version has expired (HTTP 410 Gone), as a server does when a
// watch falls behind; both reflectors then relist. The next Send waits for
// the watch opened after the relist. It reports false if ctx ended or the
// watch was stopped first.
func (s *ClientGo[T, L]) Expire(ctx context.Context) bool {
	p, err := s.watch.wait(ctx)
	if err != nil {
		return false
	}
	status := apierrors.NewResourceExpired("too old resource version").Status()
	ok := p.send(ctx, watch.Event{Type: watch.Error, Object: &status})
	s.watch.forget(p)
	return ok
}

// Close stops the current watch.
func (s *ClientGo[T, L]) Close() { s.watch.stopAll() }

type clientGoWatch struct{ p *pipe[watch.Event] }

func (w clientGoWatch) Stop()                          { w.p.stop() }
func (w clientGoWatch) ResultChan() <-chan watch.Event { return w.p.events }
