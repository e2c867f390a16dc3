package integration

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// The benchmarks compare typedcache's informer with client-go's on the
// same server in the same run, both reading through client-go's typed
// clients as their users do, for ConfigMaps and Pods, on protobuf (the
// typed clients' default) and JSON (a rest.Config whose ContentType is
// application/json, on both sides), and on CBOR where the server serves it
// (see benchCodecs):
//
//   - BenchmarkInitialSync: a fresh informer fills its cache with 5,000
//     objects from the live server, with a streaming list and with a
//     classic paginated list; each row syncs once untimed first. It
//     reports objects/s, the process's CPU time per object (user and
//     system time from the operating system, so decoding, TLS, HTTP and
//     garbage collection on every goroutine count), and, measured once
//     after the loop, the live heap per cached object.
//   - BenchmarkUpdates: a fresh informer syncs 100 objects and then
//     applies 10,000 updates. The server's responses are recorded once
//     from the live server and replayed from memory to every informer, so
//     that the benchmark measures what the client does (decoding included)
//     and not how fast the server writes. It reports updates/s and CPU
//     time per update.
//
// Rows with fields=nomanaged drop managedFields on both sides:
// kube.Options.DropManagedFields for typedcache, a transform that clears
// them for client-go (controller-runtime's TransformStripManagedFields).
// With -short every size is divided by 10.

// benchSizes returns the objects to sync, the objects to update and the
// updates.
func benchSizes() (synced, updated, updates int) {
	if testing.Short() {
		return 500, 100, 1000
	}
	return 5000, 100, 10000
}

// A codec is the content type both libraries' clients ask for.
type codec struct {
	name      string
	configure func(*rest.Config)
}

var codecs = []codec{
	{"protobuf", func(*rest.Config) {}}, // the typed clients' default for built-in types
	{"json", func(c *rest.Config) { c.ContentType = "application/json" }},
}

// cborCodec is CBOR, which the benchmarks add where both the server and
// client-go allow it (see benchCodecs). The source has no decoding of its
// own for it, so both libraries decode it through client-go.
var cborCodec = codec{"cbor", func(c *rest.Config) { c.ContentType = "application/cbor" }}

// benchCodecs returns the codecs the benchmarks compare: codecs, and CBOR
// when the server serves it (kube-apiserver's alpha feature gate
// CBORServingAndStorage, which scripts/kube-apiserver/cluster turns on)
// and client-go may ask for it (its feature gate ClientsAllowCBOR, which
// TestMain turns on); without both a client configured for CBOR would
// silently speak JSON.
func (c *cluster) benchCodecs(b *testing.B) []codec {
	b.Helper()
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) {
		b.Log("no CBOR rows: client-go's feature gate ClientsAllowCBOR is off")
		return codecs
	}
	var contentType string
	err := c.client(b, nil).CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces").Param("limit", "1").
		SetHeader("Accept", "application/cbor").Do(context.Background()).ContentType(&contentType).Error()
	if err != nil || contentType != "application/cbor" {
		b.Logf("no CBOR rows: the server answers a request for CBOR with %q (%v); "+
			"start it with --feature-gates=CBORServingAndStorage=true", contentType, err)
		return codecs
	}
	return append(slices.Clip(codecs), cborCodec)
}

// clientset returns a clientset of cfg speaking c.
func (c codec) clientset(t testing.TB, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	c.configure(cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// A variant is one library with or without managedFields.
type variant struct {
	impl        string // "typedcache" or "client-go"
	dropManaged bool
}

func (v variant) fields() string {
	if v.dropManaged {
		return "nomanaged"
	}
	return "all"
}

// variantsOf lists the variants a kind is measured with: both libraries,
// and for Pods both libraries without managedFields.
func variantsOf(kind string) []variant {
	vs := []variant{{"typedcache", false}, {"client-go", false}}
	if kind == "pods" {
		vs = append(vs, variant{"typedcache", true}, variant{"client-go", true})
	}
	return vs
}

// started is an informer that has been started: synced waits for its
// initial sync, size counts its cache, stop stops it and returns once
// everything has stopped.
type started struct {
	synced func(ctx context.Context) error
	size   func() int
	stop   func()
}

// start starts v's informer of k's objects of ns through cs; onAdd sees
// every added object.
func start[T kube.Object, L kube.ListObject](v variant, k benchKind[T, L], cs kubernetes.Interface, ns string, onAdd func(T)) started {
	if v.impl == "typedcache" {
		src := kube.SourceWithOptions[T](k.client(cs, ns), kube.Options{DropManagedFields: v.dropManaged})
		inf := informer.New(src, informer.Options[T]{})
		if _, err := inf.AddEventHandler(informer.HandlerFuncs[T]{AddFunc: func(obj T, _ bool) { onAdd(obj) }}); err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = inf.Run(ctx) }()
		return started{inf.WaitForSync, inf.Cache().Len, func() { cancel(); <-done }}
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := k.informer(f)
	if v.dropManaged {
		if err := inf.SetTransform(stripManagedFields); err != nil {
			panic(err)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { onAdd(obj.(T)) }}); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	synced := func(ctx context.Context) error {
		// Not cache.WaitForCacheSync: it polls every 100ms.
		select {
		case <-inf.HasSyncedChecker().Done():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return started{synced, func() int { return len(inf.GetStore().ListKeys()) }, func() { cancel(); f.Shutdown() }}
}

// stripManagedFields is controller-runtime's TransformStripManagedFields.
func stripManagedFields(obj any) (any, error) {
	if o, ok := obj.(kube.Object); ok {
		o.SetManagedFields(nil)
	}
	return obj, nil
}

func BenchmarkInitialSync(b *testing.B) {
	b.Setenv(informer.MutationDetectorEnv, "false") // the informer alone; TestMain turns the detector on for tests
	c := newCluster(b)
	benchInitialSync(b, c, configMaps)
	benchInitialSync(b, c, pods)
}

func benchInitialSync[T kube.Object, L kube.ListObject](b *testing.B, c *cluster, k benchKind[T, L]) {
	n, _, _ := benchSizes()
	ns := c.namespace(b)
	created := false
	create := func(b *testing.B) { // once, by the first row -bench selects
		if !created {
			createAll(b, c.client(b, nil), k, ns, n)
			created = true
		}
	}
	for _, cd := range c.benchCodecs(b) {
		cs := cd.clientset(b, c.cfg)
		for _, m := range modes {
			for _, v := range variantsOf(k.name) {
				b.Run(fmt.Sprintf("kind=%s/content=%s/mode=%s/fields=%s/impl=%s", k.name, cd.name, m.name, v.fields(), v.impl), func(b *testing.B) {
					m.use(b)
					create(b)
					ctx := context.Background()
					sync := func() func() {
						s := start(v, k, cs, ns, func(T) {})
						if err := s.synced(ctx); err != nil {
							b.Fatal(err)
						}
						if got := s.size(); got != n {
							b.Fatalf("%d objects cached, want %d", got, n)
						}
						return s.stop
					}
					// One untimed sync first: the server has just written
					// the objects, and the first informer to read them
					// waits for its watch cache to catch up.
					sync()()
					b.ReportAllocs()
					cpu := startCPU()
					for b.Loop() {
						sync()()
					}
					cpu.report(b, n*b.N, "object")
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
					b.ReportMetric(heapPerObject(sync, n), "heap-B/object")
				})
			}
		}
	}
}

// heapPerObject measures the live heap a started informer holds per
// cached object: sync returns once the informer has synced its n objects,
// and returns its stop function. The heap while the informer runs is
// compared with the heap before it started and once it has stopped, each
// after a collection; either comparison comes out low when something of
// an informer (this one after its stop, or an earlier one) is still
// reachable at that moment, so the larger is the informer's.
func heapPerObject(sync func() func(), n int) float64 {
	var before, running, stopped runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := sync()
	runtime.GC()
	runtime.ReadMemStats(&running)
	stop()
	runtime.GC()
	runtime.ReadMemStats(&stopped)
	held := int64(running.HeapAlloc) - int64(min(before.HeapAlloc, stopped.HeapAlloc))
	return float64(held) / float64(n)
}

func BenchmarkUpdates(b *testing.B) {
	b.Setenv(informer.MutationDetectorEnv, "false") // the informer alone; TestMain turns the detector on for tests
	c := newCluster(b)
	benchUpdates(b, c, configMaps)
	benchUpdates(b, c, pods)
}

func benchUpdates[T kube.Object, L kube.ListObject](b *testing.B, c *cluster, k benchKind[T, L]) {
	_, _, updates := benchSizes()
	codecs := c.benchCodecs(b)
	recs := record(b, c, k, codecs)
	m := mode{"streaming", true}
	for _, cd := range codecs {
		rec := recs[cd.name]
		for _, v := range variantsOf(k.name) {
			b.Run(fmt.Sprintf("kind=%s/content=%s/fields=%s/impl=%s", k.name, cd.name, v.fields(), v.impl), func(b *testing.B) {
				m.use(b)
				cfg := rest.CopyConfig(c.cfg)
				cfg.Transport, cfg.TLSClientConfig = rec, rest.TLSClientConfig{}
				cfg.BearerToken = ""
				cs := cd.clientset(b, cfg)
				ctx := context.Background()
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					done := make(chan struct{})
					onAdd := func(obj T) {
						if obj.GetName() == sentinel {
							close(done)
						}
					}
					s := start(v, k, cs, rec.ns, onAdd)
					if err := s.synced(ctx); err != nil {
						b.Fatal(err)
					}
					select {
					case <-done:
					case <-time.After(time.Minute):
						b.Fatal("the replayed updates did not all arrive")
					}
					s.stop()
				}
				cpu.report(b, updates*b.N, "update")
				b.ReportMetric(float64(updates)*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
			})
		}
	}
}
