package informer_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/source"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/reflector"
)

// harness runs one informer of either implementation over n fixture
// objects, with handlers that call onEvent for every add and update.
type harness interface {
	// prepare builds the source's next list answer (untimed work).
	prepare()
	// start runs the informer.
	start()
	// send sends a Modified event for obj through the source's watch.
	send(ctx context.Context, obj *corev1.ConfigMap) bool
	// list lists the whole cache through the implementation's lister, as
	// a controller would, and returns its length.
	list() int
	// stop stops the informer and waits for its goroutines.
	stop()
}

// onEvent is called by handler h for every object it is told about.
type onEvent func(h int, obj *corev1.ConfigMap)

// setup describes the informer a harness runs.
type setup struct {
	objects  int     // fixture objects in the source
	handlers int     // handlers registered before Run
	noIndex  bool    // leave out the namespace index
	on       onEvent // called by every handler for every add and update
}

// starter builds a harness of one implementation.
type starter func(b *testing.B, s setup) harness

type typedHarness struct {
	b      *testing.B
	src    *source.Typed
	inf    *informer.Informer[*corev1.ConfigMap]
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newTyped(b *testing.B, s setup) harness {
	h := &typedHarness{b: b, src: source.NewTyped(s.objects)}
	var opts informer.Options[*corev1.ConfigMap]
	if !s.noIndex {
		opts.Indexers = indexer.Indexers[*corev1.ConfigMap]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*corev1.ConfigMap]}
	}
	h.inf = informer.New(h.src, opts)
	on := s.on
	for i := range s.handlers {
		_, err := h.inf.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
			AddFunc:    func(obj *corev1.ConfigMap, _ bool) { on(i, obj) },
			UpdateFunc: func(_, obj *corev1.ConfigMap) { on(i, obj) },
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return h
}

func (h *typedHarness) prepare() { h.src.Prepare() }

func (h *typedHarness) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.wg.Go(func() {
		if err := h.inf.Run(ctx); err != nil {
			h.b.Error(err)
		}
	})
}

func (h *typedHarness) send(ctx context.Context, obj *corev1.ConfigMap) bool {
	return h.src.Send(ctx, reflector.Updated, obj)
}

func (h *typedHarness) list() int { return len(h.inf.Lister().List()) }

func (h *typedHarness) stop() {
	h.cancel()
	h.wg.Wait()
}

type clientGoHarness struct {
	src    *source.ClientGo
	inf    cache.SharedIndexInformer
	lister corev1listers.ConfigMapLister
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newClientGo(b *testing.B, s setup) harness {
	h := &clientGoHarness{src: source.NewClientGo(s.objects)}
	indexers := cache.Indexers{}
	if !s.noIndex {
		indexers[cache.NamespaceIndex] = cache.MetaNamespaceIndexFunc
	}
	h.inf = cache.NewSharedIndexInformerWithOptions(h.src, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{Indexers: indexers})
	h.lister = corev1listers.NewConfigMapLister(h.inf.GetIndexer())
	on := s.on
	for i := range s.handlers {
		_, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { on(i, obj.(*corev1.ConfigMap)) },
			UpdateFunc: func(_, obj any) { on(i, obj.(*corev1.ConfigMap)) },
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return h
}

func (h *clientGoHarness) prepare() { h.src.Prepare() }

func (h *clientGoHarness) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.wg.Go(func() { h.inf.RunWithContext(ctx) })
}

func (h *clientGoHarness) send(ctx context.Context, obj *corev1.ConfigMap) bool {
	return h.src.Send(ctx, watch.Modified, obj)
}

func (h *clientGoHarness) list() int {
	objs, err := h.lister.List(labels.Everything())
	if err != nil {
		return -1
	}
	return len(objs)
}

func (h *clientGoHarness) stop() {
	h.cancel()
	h.wg.Wait()
}

// counter counts one handler's notifications and lets a benchmark wait
// until a total is reached.
type counter struct {
	n    atomic.Int64
	want atomic.Int64
	done chan struct{} // a wake-up for wait; may be stale
}

func newCounters(k int) []*counter {
	cs := make([]*counter, k)
	for i := range cs {
		cs[i] = &counter{done: make(chan struct{}, 1)}
	}
	return cs
}

// count records one notification.
func (c *counter) count() {
	if c.n.Add(1) >= c.want.Load() {
		select {
		case c.done <- struct{}{}:
		default:
		}
	}
}

// wait waits until the count reaches total.
func (c *counter) wait(total int64) {
	c.want.Store(total)
	for c.n.Load() < total {
		<-c.done
	}
}

// waitAll waits until every counter reaches total.
func waitAll(cs []*counter, total int64) {
	for _, c := range cs {
		c.wait(total)
	}
}

// impls runs body for both implementations as the sub-benchmarks
// impl=typedcache and impl=client-go.
func impls(b *testing.B, body func(b *testing.B, start starter)) {
	b.Run("impl=typedcache", func(b *testing.B) { body(b, newTyped) })
	b.Run("impl=client-go", func(b *testing.B) { body(b, newClientGo) })
}
