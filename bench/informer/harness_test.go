package informer_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/source"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// harness runs one informer of either implementation over n fixture
// objects of type T, with handlers that call onEvent for every
// notification.
type harness[T any] interface {
	// prepare builds the source's next list answer (untimed work).
	prepare()
	// start runs the informer.
	start()
	// send sends a Modified event for obj through the source's watch.
	send(ctx context.Context, obj T) bool
	// list lists the whole cache through the implementation's lister, as
	// a controller would, and returns its length.
	list() int
	// stop stops the informer and waits for its goroutines.
	stop()
}

// onEvent is called by handler h for every object it is told about: added,
// updated or deleted (the last state the informer knew).
type onEvent[T any] func(h int, obj T)

// setup describes the informer a harness runs.
type setup[T any] struct {
	objects  int        // fixture objects in the source
	handlers int        // handlers registered before Run
	noIndex  bool       // leave out the namespace index
	metrics  bool       // typedcache: export metrics, scraped every scrapeEvery
	on       onEvent[T] // called by every handler for every notification
}

// starter builds a harness of one implementation.
type starter[T any] func(b *testing.B, s setup[T]) harness[T]

// resource is a fixture kind with what client-go needs to read its objects
// back: its generated lister, and the conversion of the objects its
// handlers receive.
type resource[T kube.Object, L kube.ListObject] struct {
	kind fixture.Kind[T, L]
	// listAll lists an indexer through the resource's generated lister.
	listAll func(cache.Indexer) (int, error)
	// from converts an object a client-go handler receives.
	from func(obj any) T
}

var configMaps = resource[*corev1.ConfigMap, *corev1.ConfigMapList]{
	kind: fixture.ConfigMaps,
	listAll: func(idx cache.Indexer) (int, error) {
		objs, err := corev1listers.NewConfigMapLister(idx).List(labels.Everything())
		return len(objs), err
	},
	from: func(obj any) *corev1.ConfigMap { return obj.(*corev1.ConfigMap) },
}

var pods = resource[*corev1.Pod, *corev1.PodList]{
	kind: fixture.Pods,
	listAll: func(idx cache.Indexer) (int, error) {
		objs, err := corev1listers.NewPodLister(idx).List(labels.Everything())
		return len(objs), err
	},
	from: func(obj any) *corev1.Pod { return obj.(*corev1.Pod) },
}

// typedHarness runs typedcache's informer over any source.
type typedHarness[T kube.Object] struct {
	b         *testing.B
	prepareTo func()
	sendTo    func(ctx context.Context, obj T) bool
	inf       *informer.Informer[T]
	stats     func() informer.Stats // set by Options.Metrics; nil without metrics
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// scrapeEvery is how often a harness with metrics reads its informer's
// Stats, as a Prometheus scrape would, only far more often (Prometheus'
// default interval is a minute).
const scrapeEvery = 100 * time.Millisecond

func newTypedHarness[T kube.Object](b *testing.B, s setup[T], lw reflector.ListerWatcher[T]) *typedHarness[T] {
	h := &typedHarness[T]{b: b}
	// Client-go logs through klog, which TestMain discards.
	opts := informer.Options[T]{Logger: slog.New(slog.DiscardHandler)}
	if !s.noIndex {
		opts.Indexers = indexer.Indexers[T]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[T]}
	}
	if s.metrics {
		opts.Metrics = func(_ string, stats func() informer.Stats) { h.stats = stats }
	}
	h.inf = informer.New(lw, opts)
	on := s.on
	for i := range s.handlers {
		_, err := h.inf.AddEventHandler(informer.HandlerFuncs[T]{
			AddFunc:    func(obj T, _ bool) { on(i, obj) },
			UpdateFunc: func(_, obj T) { on(i, obj) },
			DeleteFunc: func(d informer.Deleted[T]) { on(i, d.Object) },
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return h
}

// kubeStarter runs typedcache's informer through the kube adapter over
// client-go's source of r's objects: the Kubernetes path.
func kubeStarter[T kube.Object, L kube.ListObject](r resource[T, L]) starter[T] {
	return func(b *testing.B, s setup[T]) harness[T] {
		return kubeOver(b, s, source.NewClientGo(r.kind, s.objects))
	}
}

// kubeOver runs typedcache's informer through the kube adapter over src.
func kubeOver[T kube.Object, L kube.ListObject](b *testing.B, s setup[T], src *source.ClientGo[T, L]) harness[T] {
	lw := kube.SourceWithOptions[T](src.Kube(), kube.Options{DisableStreamingList: true})
	h := newTypedHarness(b, s, lw)
	h.prepareTo = src.Prepare
	h.sendTo = func(ctx context.Context, obj T) bool { return src.Send(ctx, watch.Modified, obj) }
	return h
}

// newDirect runs typedcache's informer over its own source of prebuilt
// ConfigMaps: the path of custom sources.
func newDirect(b *testing.B, s setup[*corev1.ConfigMap]) harness[*corev1.ConfigMap] {
	src := source.NewTyped(s.objects)
	h := newTypedHarness(b, s, src)
	h.prepareTo = src.Prepare
	h.sendTo = func(ctx context.Context, obj *corev1.ConfigMap) bool { return src.Send(ctx, reflector.Updated, obj) }
	return h
}

func (h *typedHarness[T]) prepare() { h.prepareTo() }

func (h *typedHarness[T]) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.wg.Go(func() {
		if err := h.inf.Run(ctx); err != nil {
			h.b.Error(err)
		}
	})
	if h.stats != nil {
		h.wg.Go(func() { scrape(ctx, h.stats) })
	}
}

// scrape reads stats every scrapeEvery until ctx ends.
func scrape(ctx context.Context, stats func() informer.Stats) {
	tick := time.NewTicker(scrapeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if s := stats(); s.Cached < 0 {
				panic("negative cache size")
			}
		}
	}
}

func (h *typedHarness[T]) send(ctx context.Context, obj T) bool { return h.sendTo(ctx, obj) }

func (h *typedHarness[T]) list() int { return len(h.inf.Lister().List()) }

func (h *typedHarness[T]) stop() {
	h.cancel()
	h.wg.Wait()
}

// clientGoHarness runs client-go's SharedIndexInformer over client-go's
// source of r's objects.
type clientGoHarness[T kube.Object, L kube.ListObject] struct {
	r      resource[T, L]
	src    *source.ClientGo[T, L]
	inf    cache.SharedIndexInformer
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// clientGoStarter runs client-go's informer over its source of r's
// objects.
func clientGoStarter[T kube.Object, L kube.ListObject](r resource[T, L]) starter[T] {
	return func(b *testing.B, s setup[T]) harness[T] {
		return clientGoOver(b, r, s, source.NewClientGo(r.kind, s.objects))
	}
}

// clientGoOver runs client-go's informer of r's objects over src.
func clientGoOver[T kube.Object, L kube.ListObject](b *testing.B, r resource[T, L], s setup[T], src *source.ClientGo[T, L]) harness[T] {
	h := &clientGoHarness[T, L]{r: r, src: src}
	indexers := cache.Indexers{}
	if !s.noIndex {
		indexers[cache.NamespaceIndex] = cache.MetaNamespaceIndexFunc
	}
	h.inf = cache.NewSharedIndexInformerWithOptions(src, r.kind.Empty(), cache.SharedIndexInformerOptions{Indexers: indexers})
	on := s.on
	for i := range s.handlers {
		_, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { on(i, r.from(obj)) },
			UpdateFunc: func(_, obj any) { on(i, r.from(obj)) },
			DeleteFunc: func(obj any) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				on(i, r.from(obj))
			},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return h
}

func (h *clientGoHarness[T, L]) prepare() { h.src.Prepare() }

func (h *clientGoHarness[T, L]) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.wg.Go(func() { h.inf.RunWithContext(ctx) })
}

func (h *clientGoHarness[T, L]) send(ctx context.Context, obj T) bool {
	return h.src.Send(ctx, watch.Modified, obj)
}

func (h *clientGoHarness[T, L]) list() int {
	n, err := h.r.listAll(h.inf.GetIndexer())
	if err != nil {
		return -1
	}
	return n
}

func (h *clientGoHarness[T, L]) stop() {
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
func impls[T any](b *testing.B, typed, clientGo starter[T], body func(b *testing.B, start starter[T])) {
	b.Run("impl=typedcache", func(b *testing.B) { body(b, typed) })
	b.Run("impl=client-go", func(b *testing.B) { body(b, clientGo) })
}

// paths runs body over ConfigMaps on both paths: path=kube, where
// typedcache reads client-go's source through the kube adapter (the
// headline), and path=direct, where it reads its own source of prebuilt
// objects. Client-go reads the same source on both.
func paths(b *testing.B, body func(b *testing.B, start starter[*corev1.ConfigMap])) {
	kubePath(b, configMaps, body)
	b.Run("path=direct", func(b *testing.B) {
		impls(b, newDirect, clientGoStarter(configMaps), body)
	})
}

// kubePath runs body over r's objects on the Kubernetes path only, as
// path=kube.
func kubePath[T kube.Object, L kube.ListObject](b *testing.B, r resource[T, L], body func(b *testing.B, start starter[T])) {
	b.Run("path=kube", func(b *testing.B) { impls(b, kubeStarter(r), clientGoStarter(r), body) })
}
