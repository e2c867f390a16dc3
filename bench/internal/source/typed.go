package source

import (
	"context"
	"io"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/reflector"
)

// Typed is a typedcache ListerWatcher over n fixture ConfigMaps, the
// counterpart of ClientGo. It declares no optional capabilities.
type Typed struct {
	n     int
	watch current[reflector.Event[*corev1.ConfigMap]]

	mu       sync.Mutex
	prepared []*corev1.ConfigMap
	rv       string // of prepared; "" means n
}

var _ reflector.ListerWatcher[*corev1.ConfigMap] = (*Typed)(nil)

// NewTyped returns a source of fixture objects 0..n-1.
func NewTyped(n int) *Typed {
	s := &Typed{n: n}
	s.watch.init()
	return s
}

// Prepare builds the answer of the next List, so that building it is not
// measured. Without it, List builds one itself.
func (s *Typed) Prepare() {
	items := fixture.Set(s.n)
	s.mu.Lock()
	s.prepared = items
	s.mu.Unlock()
}

// PrepareItems makes items, at resource version rv, the answer of the next
// List.
func (s *Typed) PrepareItems(items []*corev1.ConfigMap, rv string) {
	s.mu.Lock()
	s.prepared, s.rv = items, rv
	s.mu.Unlock()
}

// List hands out the prepared items and forgets them, so that the source
// never keeps objects alive that only the cache should hold.
func (s *Typed) List(context.Context, reflector.ListOptions) (reflector.ListResult[*corev1.ConfigMap], error) {
	s.mu.Lock()
	items, rv := s.prepared, s.rv
	s.prepared, s.rv = nil, ""
	s.mu.Unlock()
	if items == nil {
		items = fixture.Set(s.n)
	}
	if rv == "" {
		rv = strconv.Itoa(s.n)
	}
	return reflector.ListResult[*corev1.ConfigMap]{Items: items, ResourceVersion: rv}, nil
}

// Watch opens a watch that streams what Send sends.
func (s *Typed) Watch(context.Context, reflector.WatchOptions) (reflector.Watch[*corev1.ConfigMap], error) {
	return typedWatch{s.watch.open()}, nil
}

// Capabilities declares none of the optional features.
func (s *Typed) Capabilities() reflector.Capabilities { return reflector.Capabilities{} }

// Watching waits until a consumer has opened a watch.
func (s *Typed) Watching(ctx context.Context) error {
	_, err := s.watch.wait(ctx)
	return err
}

// Send sends one event to the current watch, waiting for the consumer to
// open one and for room in its buffer. It reports false if ctx ended or the
// watch was stopped first.
func (s *Typed) Send(ctx context.Context, t reflector.EventType, obj *corev1.ConfigMap) bool {
	p, err := s.watch.wait(ctx)
	if err != nil {
		return false
	}
	return p.send(ctx, reflector.Event[*corev1.ConfigMap]{Type: t, Object: obj})
}

// Close stops the current watch.
func (s *Typed) Close() { s.watch.stopAll() }

type typedWatch struct {
	p *pipe[reflector.Event[*corev1.ConfigMap]]
}

// Next takes the next event sent, as a source reading a network stream
// would: at once when one is ready, otherwise waiting for it or for ctx.
func (w typedWatch) Next(ctx context.Context) (reflector.Event[*corev1.ConfigMap], error) {
	var ev reflector.Event[*corev1.ConfigMap]
	var ok bool
	select {
	case ev, ok = <-w.p.events:
	default:
		select {
		case ev, ok = <-w.p.events:
		case <-ctx.Done():
			return ev, ctx.Err()
		}
	}
	if !ok {
		return ev, io.EOF
	}
	return ev, nil
}

func (w typedWatch) Stop() { w.p.stop() }
