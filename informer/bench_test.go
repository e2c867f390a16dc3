package informer_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// The benchmarks mirror the side-by-side comparison with client-go: a
// source whose list is fixed and whose single watch is a channel the
// benchmark feeds with pre-built objects, so that what is measured is the
// informer (reflector, FIFO, cache, handler hand-off), not the source.

// benchObj is a small Kubernetes-like object.
type benchObj struct {
	Namespace, Name, RV string
	// Sent is when the event was sent, for latency measurements.
	Sent time.Time
}

func (o *benchObj) GetNamespace() string         { return o.Namespace }
func (o *benchObj) GetName() string              { return o.Name }
func (o *benchObj) GetResourceVersion() string   { return o.RV }
func (o *benchObj) SetResourceVersion(rv string) { o.RV = rv }
func (o *benchObj) DeepCopy() *benchObj          { c := *o; return &c }

// detectorOff turns off for a benchmark the cache mutation detector that
// TestMain turns on for the tests: benchmarks measure the informer alone.
func detectorOff(b *testing.B) { b.Setenv(informer.MutationDetectorEnv, "false") }

// chanSource lists items and then streams what the benchmark sends on ch.
type chanSource struct {
	items []*benchObj
	ch    chan reflector.Event[*benchObj]
}

func newChanSource(items []*benchObj) *chanSource {
	return &chanSource{items: items, ch: make(chan reflector.Event[*benchObj], 100)}
}

func (s *chanSource) List(context.Context, reflector.ListOptions) (reflector.ListResult[*benchObj], error) {
	return reflector.ListResult[*benchObj]{Items: slices.Clone(s.items), ResourceVersion: "1"}, nil
}

func (s *chanSource) Watch(context.Context, reflector.WatchOptions) (reflector.Watch[*benchObj], error) {
	return chanWatch{s.ch}, nil
}

func (s *chanSource) Capabilities() reflector.Capabilities { return reflector.Capabilities{} }

type chanWatch struct {
	ch chan reflector.Event[*benchObj]
}

// Next takes the next event sent, as a source reading a network stream
// would: at once when one is ready, otherwise waiting for it or for ctx.
func (w chanWatch) Next(ctx context.Context) (reflector.Event[*benchObj], error) {
	select {
	case ev := <-w.ch:
		return ev, nil
	default:
	}
	select {
	case ev := <-w.ch:
		return ev, nil
	case <-ctx.Done():
		return reflector.Event[*benchObj]{}, ctx.Err()
	}
}

func (w chanWatch) Stop() {}

// benchObjects returns n objects in one namespace, and versions more
// states of each with distinct resource versions, so that updates are
// never mistaken for resyncs.
func benchObjects(n, versions int) (initial []*benchObj, updates [][]*benchObj) {
	initial = make([]*benchObj, n)
	updates = make([][]*benchObj, n)
	for i := range n {
		name := fmt.Sprintf("pod-%06d", i)
		initial[i] = &benchObj{Namespace: "default", Name: name, RV: "1"}
		for v := range versions {
			updates[i] = append(updates[i], &benchObj{Namespace: "default", Name: name, RV: strconv.Itoa(2 + v)})
		}
	}
	return initial, updates
}

// runBench runs inf until the benchmark ends.
func runBench[T keys.Object](b *testing.B, inf *informer.Informer[T]) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = inf.Run(ctx)
	}()
	b.Cleanup(func() {
		cancel()
		<-done
	})
}

// allocStats reports allocations per unit between two calls.
type allocStats struct{ before runtime.MemStats }

func startAllocStats() *allocStats {
	s := &allocStats{}
	runtime.ReadMemStats(&s.before)
	return s
}

func (s *allocStats) report(b *testing.B, units float64, unit string) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-s.before.Mallocs)/units, "allocs/"+unit)
	b.ReportMetric(float64(after.TotalAlloc-s.before.TotalAlloc)/units, "B/"+unit)
}

// BenchmarkEvents measures watch events through the informer to its
// handlers, with up to 100 events in flight (the shape of client-go's
// BenchmarkSharedIndexInformer, generalised to several handlers).
//
// With indexed set, the cache keeps a namespace index; NamespaceIndexFunc
// shares one slice per namespace, so indexing allocates nothing.
func BenchmarkEvents(b *testing.B) {
	detectorOff(b)
	for _, indexed := range []bool{false, true} {
		for _, handlers := range []int{1, 4} {
			b.Run(fmt.Sprintf("indexed=%t/handlers=%d", indexed, handlers), func(b *testing.B) {
				benchmarkEvents(b, indexed, handlers)
			})
		}
	}
}

func benchmarkEvents(b *testing.B, indexed bool, handlers int) {
	const inFlight = 100
	initial, updates := benchObjects(1000, 4)
	src := newChanSource(initial)
	var indexers indexer.Indexers[*benchObj]
	if indexed {
		indexers = indexer.Indexers[*benchObj]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj]}
	}
	inf := informer.New(src, informer.Options[*benchObj]{Indexers: indexers})
	tokens := make(chan struct{}, inFlight*handlers)
	var delivered atomic.Int64
	var regs []informer.Syncer
	for range handlers {
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[*benchObj]{UpdateFunc: func(_, _ *benchObj) {
			delivered.Add(1)
			<-tokens
		}})
		if err != nil {
			b.Fatal(err)
		}
		regs = append(regs, reg)
	}
	runBench(b, inf)
	if err := informer.WaitForCacheSync(b.Context(), regs...); err != nil {
		b.Fatal(err)
	}
	stats := startAllocStats()
	sent := 0
	for b.Loop() {
		o := updates[sent%len(updates)][(sent/len(updates))%4]
		src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: o}
		for range handlers {
			tokens <- struct{}{}
		}
		sent++
	}
	stats.report(b, float64(sent), "event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sent), "ns/event")
}

// BenchmarkLatency measures the time from sending a watch event to its
// handler call, at 10k events/s. The sender yields after each send, as in
// the bench module's BenchmarkInformerLatency, which explains why.
func BenchmarkLatency(b *testing.B) {
	detectorOff(b)
	const rate = 10_000
	const perIteration = 2_000
	initial, _ := benchObjects(1000, 0)
	src := newChanSource(initial)
	inf := informer.New(src, informer.Options[*benchObj]{})
	var mu sync.Mutex
	var latencies []time.Duration
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*benchObj]{UpdateFunc: func(_, o *benchObj) {
		d := time.Since(o.Sent)
		mu.Lock()
		latencies = append(latencies, d)
		mu.Unlock()
	}})
	if err != nil {
		b.Fatal(err)
	}
	runBench(b, inf)
	if err := reg.WaitForSync(b.Context()); err != nil {
		b.Fatal(err)
	}
	version := 1
	for b.Loop() {
		begin := time.Now()
		for i := range perIteration {
			time.Sleep(time.Until(begin.Add(time.Duration(i) * time.Second / rate)))
			version++
			o := *initial[i%len(initial)]
			o.RV = strconv.Itoa(version)
			o.Sent = time.Now()
			src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: &o}
			// Let the informer take the event before this goroutine
			// sleeps: arming a timer can cost a syscall that the
			// reflector, woken on this processor, would wait behind.
			runtime.Gosched()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

// BenchmarkInitialSync measures a new informer listing n objects from an
// in-memory source until its handler has received every initial add, and
// the heap the cache keeps per object beyond the objects themselves.
func BenchmarkInitialSync(b *testing.B) {
	detectorOff(b)
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			src := memsource.New(memsource.Options[*benchObj]{DisableStreamingList: true})
			for i := range n {
				if _, err := src.Create(&benchObj{Namespace: "default", Name: fmt.Sprintf("pod-%06d", i)}); err != nil {
					b.Fatal(err)
				}
			}
			var heapPerObject float64
			stats := startAllocStats()
			for b.Loop() {
				var adds atomic.Int64
				inf := informer.New(src, informer.Options[*benchObj]{
					Indexers: indexer.Indexers[*benchObj]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj]},
				})
				reg, err := inf.AddEventHandler(informer.HandlerFuncs[*benchObj]{AddFunc: func(*benchObj, bool) { adds.Add(1) }})
				if err != nil {
					b.Fatal(err)
				}
				var before runtime.MemStats
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				ctx, cancel := context.WithCancel(b.Context())
				done := make(chan struct{})
				go func() {
					defer close(done)
					_ = inf.Run(ctx)
				}()
				if err := reg.WaitForSync(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if adds.Load() != int64(n) {
					b.Fatalf("synced after %d adds, want %d", adds.Load(), n)
				}
				var after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&after)
				heapPerObject = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
				runtime.KeepAlive(inf)
				cancel()
				<-done
				b.StartTimer()
			}
			stats.report(b, float64(b.N*n), "object")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			b.ReportMetric(heapPerObject, "heap-B/object")
		})
	}
}

// BenchmarkWritesUnderListers measures the events the informer applies
// per second while 10 goroutines list the whole cache of 10k objects in a
// loop (client-go's BenchmarkSharedIndexInformer/readers=10).
func BenchmarkWritesUnderListers(b *testing.B) {
	detectorOff(b)
	for _, mode := range []string{"List", "Namespace"} {
		b.Run("via="+mode, func(b *testing.B) {
			const readers = 10
			initial, updates := benchObjects(10_000, 4)
			src := newChanSource(initial)
			inf := informer.New(src, informer.Options[*benchObj]{
				Indexers: indexer.Indexers[*benchObj]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj]},
			})
			tokens := make(chan struct{}, 10)
			var writes atomic.Int64
			reg, err := inf.AddEventHandler(informer.HandlerFuncs[*benchObj]{UpdateFunc: func(_, _ *benchObj) {
				writes.Add(1)
				select {
				case <-tokens:
				default:
				}
			}})
			if err != nil {
				b.Fatal(err)
			}
			runBench(b, inf)
			if err := reg.WaitForSync(b.Context()); err != nil {
				b.Fatal(err)
			}
			lister := inf.Lister()
			var reads atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range readers {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						var got []*benchObj
						if mode == "List" {
							got = lister.List()
						} else {
							got = lister.Namespace("default").List()
						}
						if len(got) != len(initial) {
							panic(fmt.Sprintf("listed %d objects, want %d", len(got), len(initial)))
						}
						reads.Add(1)
					}
				})
			}
			writes.Store(0)
			reads.Store(0)
			sent := 0
			for b.Loop() {
				o := updates[sent%len(updates)][(sent/len(updates))%4]
				src.ch <- reflector.Event[*benchObj]{Type: reflector.Updated, Object: o}
				tokens <- struct{}{}
				sent++
			}
			b.ReportMetric(float64(reads.Load())/b.Elapsed().Seconds(), "reads/s")
			b.ReportMetric(float64(writes.Load())/b.Elapsed().Seconds(), "writes/s")
			close(stop)
			wg.Wait()
		})
	}
}
