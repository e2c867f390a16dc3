package indexer_test

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// benchObj is shaped like a small ConfigMap: metadata with three labels and
// three 32-byte data entries.
type benchObj struct {
	Namespace, Name, RV string
	Labels              map[string]string
	Data                map[string]string
}

func (o *benchObj) GetNamespace() string       { return o.Namespace }
func (o *benchObj) GetName() string            { return o.Name }
func (o *benchObj) GetResourceVersion() string { return o.RV }

func appIndex(o *benchObj) ([]string, error) {
	return []string{o.Labels["app"]}, nil
}

// benchObjects returns n objects spread over 100 namespaces.
func benchObjects(n int, app string) []*benchObj {
	objs := make([]*benchObj, n)
	payload := strings.Repeat("x", 32)
	for i := range objs {
		objs[i] = &benchObj{
			Namespace: "namespace-" + strconv.Itoa(i%100),
			Name:      "object-" + strconv.Itoa(i),
			RV:        strconv.Itoa(i),
			Labels:    map[string]string{"app": app + strconv.Itoa(i%10), "tier": "backend", "track": "stable"},
			Data:      map[string]string{"a": payload, "b": payload, "c": payload},
		}
	}
	return objs
}

func newBenchIndexer(b *testing.B, objs []*benchObj) *indexer.Indexer[*benchObj] {
	b.Helper()
	x := indexer.New(keys.Of[*benchObj], indexer.Indexers[*benchObj]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj],
		"app":                  appIndex,
	})
	if err := x.Replace(objs); err != nil {
		b.Fatal(err)
	}
	return x
}

const benchN = 100_000

func BenchmarkAdd(b *testing.B) {
	objs := benchObjects(benchN, "app")
	for b.Loop() {
		x := indexer.New(keys.Of[*benchObj], indexer.Indexers[*benchObj]{
			indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj],
			"app":                  appIndex,
		})
		for _, o := range objs {
			if err := x.Add(o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/object")
}

func BenchmarkUpdate(b *testing.B) {
	for _, bc := range []struct {
		name string
		app  string
	}{{"labels-unchanged", "app"}, {"labels-changed", "other"}} {
		b.Run(bc.name, func(b *testing.B) {
			// -count runs this function again: start from fresh objects.
			objs := benchObjects(benchN, "app")
			x := newBenchIndexer(b, objs)
			next := benchObjects(benchN, bc.app)
			i := 0
			for b.Loop() {
				if err := x.Update(next[i]); err != nil {
					b.Fatal(err)
				}
				next[i], objs[i] = objs[i], next[i]
				if i++; i == benchN {
					i = 0
				}
			}
		})
	}
}

func BenchmarkGetByKey(b *testing.B) {
	objs := benchObjects(benchN, "app")
	x := newBenchIndexer(b, objs)
	ks := make([]string, len(objs))
	for i, o := range objs {
		ks[i] = keys.Join(o.Namespace, o.Name)
	}
	i := 0
	for b.Loop() {
		if _, ok := x.GetByKey(ks[i]); !ok {
			b.Fatal("missing")
		}
		if i++; i == benchN {
			i = 0
		}
	}
}

func BenchmarkByIndex(b *testing.B) {
	x := newBenchIndexer(b, benchObjects(benchN, "app"))
	for b.Loop() {
		if objs, _ := x.ByIndex(indexer.NamespaceIndex, "namespace-42"); len(objs) != benchN/100 {
			b.Fatal(len(objs))
		}
	}
}

func BenchmarkList(b *testing.B) {
	x := newBenchIndexer(b, benchObjects(benchN, "app"))
	for b.Loop() {
		if len(x.List()) != benchN {
			b.Fatal("short")
		}
	}
}

func BenchmarkAll(b *testing.B) {
	x := newBenchIndexer(b, benchObjects(benchN, "app"))
	for b.Loop() {
		n := 0
		for range x.All() {
			n++
		}
		if n != benchN {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/object")
}

// BenchmarkUpdateWhileListing measures writes while 10 goroutines list a
// cache of 10,000 objects without pause.
func BenchmarkUpdateWhileListing(b *testing.B) {
	const n, listers = 10_000, 10
	objs := benchObjects(n, "app")
	x := newBenchIndexer(b, objs)
	next := benchObjects(n, "other")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range listers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					_ = x.List()
				}
			}
		})
	}
	i := 0
	for b.Loop() {
		if err := x.Update(next[i]); err != nil {
			b.Fatal(err)
		}
		next[i], objs[i] = objs[i], next[i]
		if i++; i == n {
			i = 0
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
	close(stop)
	wg.Wait()
}

// BenchmarkUpdateAfterListing measures an Update of a random object when a
// listing has begun since the previous write, every write or every 16th:
// the copy-on-write cost that listings impose on writers, without the
// listers' goroutines. The listing is an All iteration stopped at its
// first object, which takes the same snapshot as List.
func BenchmarkUpdateAfterListing(b *testing.B) {
	for _, n := range []int{10_000, benchN} {
		for _, every := range []int{1, 16} {
			b.Run("objects="+strconv.Itoa(n)+",writes-per-listing="+strconv.Itoa(every), func(b *testing.B) {
				objs := benchObjects(n, "app")
				x := newBenchIndexer(b, objs)
				next := benchObjects(n, "app")
				rng := rand.New(rand.NewPCG(1, 2))
				w := 0
				for b.Loop() {
					if w%every == 0 {
						for range x.All() {
							break
						}
					}
					w++
					i := rng.IntN(n)
					if err := x.Update(next[i]); err != nil {
						b.Fatal(err)
					}
					next[i], objs[i] = objs[i], next[i]
				}
			})
		}
	}
}

// BenchmarkHeapPerObject reports the heap the Indexer itself holds per
// stored object (the objects excluded), with the namespace index, for
// 100,000 objects in 100 namespaces.
func BenchmarkHeapPerObject(b *testing.B) {
	objs := benchObjects(benchN, "app")
	var perObject float64
	for b.Loop() {
		before := liveHeap()
		x := indexer.New(keys.Of[*benchObj], indexer.Indexers[*benchObj]{
			indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*benchObj],
		})
		for _, o := range objs {
			if err := x.Add(o); err != nil {
				b.Fatal(err)
			}
		}
		perObject = float64(liveHeap()-before) / benchN
		runtime.KeepAlive(x)
	}
	b.ReportMetric(perObject, "B/object")
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
