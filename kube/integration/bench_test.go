package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// The benchmarks compare typedcache's informer with client-go's on the
// same server in the same run, in both modes (streaming and classic
// lists):
//
//   - BenchmarkInitialSync: a fresh informer fills its cache with 5,000
//     ConfigMaps from the live server. It reports ns/op and objects/s, and,
//     measured once after the loop, the live heap per cached object.
//   - BenchmarkUpdates: a fresh informer syncs 100 ConfigMaps and then
//     applies 10,000 updates. The server's responses (list, watch, streaming
//     watch) are recorded once from the live server and replayed from
//     memory to every informer, so that the benchmark measures what the
//     client does (decoding included) and not how fast the server writes.
//
// Both libraries decode with client-go's typed clients, protobuf; the
// difference is everything after decoding.

const (
	benchObjects = 5000
	benchUpdated = 100
	benchUpdates = 10000
)

// library starts one library's informer of the configmaps of ns through
// cs, calls onAdd/onUpdate from its handler, and returns its cache size
// and a stop function that returns once everything has stopped.
type library struct {
	name  string
	start func(cs kubernetes.Interface, ns string, onAdd, onUpdate func(*corev1.ConfigMap)) (synced func(ctx context.Context) error, size func() int, stop func())
}

var libraries = []library{
	{"typedcache", func(cs kubernetes.Interface, ns string, onAdd, onUpdate func(*corev1.ConfigMap)) (func(context.Context) error, func() int, func()) {
		inf := informer.New(kube.Source[*corev1.ConfigMap](cs.CoreV1().ConfigMaps(ns)), informer.Options[*corev1.ConfigMap]{})
		_, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
			AddFunc:    func(cm *corev1.ConfigMap, _ bool) { onAdd(cm) },
			UpdateFunc: func(_, cm *corev1.ConfigMap) { onUpdate(cm) },
		})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = inf.Run(ctx) }()
		return inf.WaitForSync, inf.Cache().Len, func() { cancel(); <-done }
	}},
	{"client-go", func(cs kubernetes.Interface, ns string, onAdd, onUpdate func(*corev1.ConfigMap)) (func(context.Context) error, func() int, func()) {
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
		inf := f.Core().V1().ConfigMaps().Informer()
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { onAdd(obj.(*corev1.ConfigMap)) },
			UpdateFunc: func(_, obj any) { onUpdate(obj.(*corev1.ConfigMap)) },
		})
		if err != nil {
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
		return synced, func() int { return len(inf.GetStore().ListKeys()) }, func() { cancel(); f.Shutdown() }
	}},
}

func nop(*corev1.ConfigMap) {}

func BenchmarkInitialSync(b *testing.B) {
	c := newCluster(b)
	ns := c.namespace(b)
	createN(b, c.client(b, nil), ns, 0, benchObjects)
	cs := c.client(b, nil)
	for _, m := range modes {
		for _, lib := range libraries {
			b.Run(m.name+"/"+lib.name, func(b *testing.B) {
				m.use(b)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					synced, size, stop := lib.start(cs, ns, nop, nop)
					if err := synced(ctx); err != nil {
						b.Fatal(err)
					}
					if n := size(); n != benchObjects {
						b.Fatalf("%d objects cached, want %d", n, benchObjects)
					}
					stop()
				}
				b.ReportMetric(float64(benchObjects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
				b.ReportMetric(heapPerObject(b, func() func() {
					synced, _, stop := lib.start(cs, ns, nop, nop)
					if err := synced(ctx); err != nil {
						b.Fatal(err)
					}
					return stop
				}), "heap-B/object")
			})
		}
	}
}

// heapPerObject measures the live heap a started informer holds per
// cached object: start returns once the informer has synced, and returns
// its stop function.
func heapPerObject(b *testing.B, start func() func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stop := start()
	runtime.GC()
	runtime.ReadMemStats(&after)
	stop()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / benchObjects
}

func BenchmarkUpdates(b *testing.B) {
	c := newCluster(b)
	rec := record(b, c)
	for _, m := range modes {
		for _, lib := range libraries {
			b.Run(m.name+"/"+lib.name, func(b *testing.B) {
				m.use(b)
				cfg := rest.CopyConfig(c.cfg)
				cfg.Transport, cfg.TLSClientConfig = rec, rest.TLSClientConfig{}
				cfg.BearerToken = ""
				cs, err := kubernetes.NewForConfig(cfg)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					done := make(chan struct{})
					onAdd := func(cm *corev1.ConfigMap) {
						if cm.Name == sentinel {
							close(done)
						}
					}
					synced, _, stop := lib.start(cs, rec.ns, onAdd, nop)
					if err := synced(ctx); err != nil {
						b.Fatal(err)
					}
					select {
					case <-done:
					case <-time.After(time.Minute):
						b.Fatal("the replayed updates did not all arrive")
					}
					stop()
				}
				b.ReportMetric(float64(benchUpdates)*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
			})
		}
	}
}

// sentinel is the name of the ConfigMap created after the recorded
// updates: its Added event marks the end of a replay.
const sentinel = "zz-sentinel"

// recording holds the server's responses to an informer's requests, to
// be replayed from memory. It is an http.RoundTripper.
type recording struct {
	ns                     string
	list, watch, streaming response
}

type response struct {
	contentType string
	body        []byte
}

// record creates benchUpdated ConfigMaps, records a list of them, then
// records a plain watch from the list's version and a streaming watch
// while it updates them benchUpdates times in all and creates the
// sentinel.
func record(b *testing.B, c *cluster) *recording {
	b.Helper()
	ns := c.namespace(b)
	rec := &recording{ns: ns}
	cs := c.client(b, nil)
	createN(b, cs, ns, 0, benchUpdated)

	var mu sync.Mutex
	tees := map[string]*bytes.Buffer{}
	cfg := rest.CopyConfig(c.cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err != nil || r.Method != http.MethodGet {
				return resp, err
			}
			kind := requestKind(r)
			buf := &bytes.Buffer{}
			mu.Lock()
			tees[kind] = buf
			mu.Unlock()
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(resp.Body, lockedWriter{&mu, buf}), resp.Body}
			mu.Lock()
			switch kind {
			case "list":
				rec.list.contentType = resp.Header.Get("Content-Type")
			case "watch":
				rec.watch.contentType = resp.Header.Get("Content-Type")
			case "streaming":
				rec.streaming.contentType = resp.Header.Get("Content-Type")
			}
			mu.Unlock()
			return resp, nil
		})
	})
	rcs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	list, err := rcs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	plain, err := rcs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		b.Fatal(err)
	}
	streaming, err := rcs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{
		SendInitialEvents: new(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := parallel(benchUpdates, writers, func(i int) error {
		cm := configMap(ns, i%benchUpdated)
		cm.Data["phase"] = fmt.Sprint(i)
		_, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	end := configMap(ns, 0)
	end.Name = sentinel
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, end, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, w := range []watch.Interface{plain, streaming} {
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Name == sentinel {
				break
			}
		}
	}
	plain.Stop()
	streaming.Stop()
	mu.Lock()
	defer mu.Unlock()
	rec.list.body = bytes.Clone(tees["list"].Bytes())
	rec.watch.body = bytes.Clone(tees["watch"].Bytes())
	rec.streaming.body = bytes.Clone(tees["streaming"].Bytes())
	b.Logf("recorded a list of %d bytes, a watch of %d bytes, a streaming watch of %d bytes",
		len(rec.list.body), len(rec.watch.body), len(rec.streaming.body))
	return rec
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func requestKind(r *http.Request) string {
	q := r.URL.Query()
	switch {
	case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
		return "streaming"
	case q.Get("watch") == "true":
		return "watch"
	}
	return "list"
}

// RoundTrip answers configmap lists and watches from the recording; a
// watch's body, once replayed, blocks until the request is cancelled, as
// an idle watch would.
func (rec *recording) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, "/configmaps") {
		return nil, fmt.Errorf("replay: unexpected request %s", r.URL)
	}
	var resp response
	var body io.Reader
	switch requestKind(r) {
	case "list":
		resp = rec.list
		body = bytes.NewReader(resp.body)
	case "watch":
		resp = rec.watch
		body = io.MultiReader(bytes.NewReader(resp.body), blockUntilDone{r.Context()})
	case "streaming":
		resp = rec.streaming
		body = io.MultiReader(bytes.NewReader(resp.body), blockUntilDone{r.Context()})
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {resp.contentType}},
		Body:       io.NopCloser(body),
		Request:    r,
	}, nil
}

type blockUntilDone struct{ ctx context.Context }

func (b blockUntilDone) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}
