package source

import (
	"context"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
)

// ClientGo is a client-go ListerWatcher over n fixture ConfigMaps. It
// declares that it does not support streaming lists (watch-list), so that
// client-go v0.37's reflector lists and then watches instead of waiting for
// an initial-events bookmark that never comes.
type ClientGo struct {
	n     int
	watch current[watch.Event]

	mu       sync.Mutex
	prepared *corev1.ConfigMapList
}

var (
	_ cache.ListerWatcherWithContext = (*ClientGo)(nil)
	_ cache.ListerWatcher            = (*ClientGo)(nil)
)

// NewClientGo returns a source of fixture objects 0..n-1.
func NewClientGo(n int) *ClientGo {
	s := &ClientGo{n: n}
	s.watch.init()
	return s
}

// Prepare builds the answer of the next List, so that building it is not
// measured. Without it, List builds one itself.
func (s *ClientGo) Prepare() {
	list := clientGoList(s.n)
	s.mu.Lock()
	s.prepared = list
	s.mu.Unlock()
}

// PrepareItems makes items, at resource version rv, the answer of the next
// List.
func (s *ClientGo) PrepareItems(items []*corev1.ConfigMap, rv string) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: make([]corev1.ConfigMap, len(items))}
	for i, o := range items {
		list.Items[i] = *o
	}
	s.mu.Lock()
	s.prepared = list
	s.mu.Unlock()
}

func clientGoList(n int) *corev1.ConfigMapList {
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)},
		Items:    make([]corev1.ConfigMap, n),
	}
	for i := range list.Items {
		list.Items[i] = *fixture.ConfigMap(i, i+1, i)
	}
	return list
}

// ListWithContext hands out the prepared list and forgets it, so that the
// source never keeps objects alive that only the cache should hold.
func (s *ClientGo) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	list := s.prepared
	s.prepared = nil
	s.mu.Unlock()
	if list == nil {
		list = clientGoList(s.n)
	}
	return list, nil
}

// WatchWithContext opens a watch that streams what Send sends.
func (s *ClientGo) WatchWithContext(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return clientGoWatch{s.watch.open()}, nil
}

// List is ListWithContext without a context.
func (s *ClientGo) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context.
func (s *ClientGo) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// IsWatchListSemanticsUnSupported tells client-go's reflector to list and
// watch rather than stream the initial list.
func (s *ClientGo) IsWatchListSemanticsUnSupported() bool { return true }

// Watching waits until a consumer has opened a watch.
func (s *ClientGo) Watching(ctx context.Context) error {
	_, err := s.watch.wait(ctx)
	return err
}

// Send sends one event to the current watch, waiting for the consumer to
// open one and for room in its buffer. It reports false if ctx ended or the
// watch was stopped first.
func (s *ClientGo) Send(ctx context.Context, t watch.EventType, obj *corev1.ConfigMap) bool {
	p, err := s.watch.wait(ctx)
	if err != nil {
		return false
	}
	return p.send(ctx, watch.Event{Type: t, Object: obj})
}

// Close stops the current watch.
func (s *ClientGo) Close() { s.watch.stopAll() }

type clientGoWatch struct{ p *pipe[watch.Event] }

func (w clientGoWatch) Stop()                          { w.p.stop() }
func (w clientGoWatch) ResultChan() <-chan watch.Event { return w.p.events }
