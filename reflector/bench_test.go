package reflector_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// benchObj is shaped like a small Kubernetes object (the same shape as
// deltafifo's benchmarks): key and version fields plus labels and data.
type benchObj struct {
	Namespace, Name, ResourceVersion string
	Labels, Data                     map[string]string
}

func (o *benchObj) GetNamespace() string        { return o.Namespace }
func (o *benchObj) GetName() string             { return o.Name }
func (o *benchObj) GetResourceVersion() string  { return o.ResourceVersion }
func (o *benchObj) SetResourceVersion(v string) { o.ResourceVersion = v }

var benchKey = keys.Of[*benchObj]

// benchSource returns a memsource holding n objects.
func benchSource(b *testing.B, n int) *memsource.Source[*benchObj] {
	src := memsource.New(memsource.Options[*benchObj]{})
	for i := range n {
		_, err := src.Create(&benchObj{
			Namespace: fmt.Sprintf("ns-%02d", i%50),
			Name:      fmt.Sprintf("cm-%06d", i),
			Labels:    map[string]string{"app": "bench", "tier": fmt.Sprint(i % 3), "shard": fmt.Sprint(i % 7)},
			Data:      map[string]string{"a": fmt.Sprintf("%032d", i), "b": fmt.Sprintf("%032d", i+1)},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return src
}

// initialSync fills a fresh DeltaFIFO and Indexer from src through a
// reflector, with a consumer popping batches of 1000 keys into the indexer
// as the informer does, and returns once the first Replace has been fully
// processed.
func initialSync(b *testing.B, src *memsource.Source[*benchObj], opts reflector.Options) {
	idx := indexer.New(benchKey, nil)
	fifo := deltafifo.New(benchKey, deltafifo.Options[*benchObj]{KnownObjects: idx})
	opts.Logger = discardLogger
	r := reflector.New(src, fifo, opts)
	ctx, cancel := context.WithCancel(b.Context())
	synced := make(chan struct{})
	apply := func(items []deltafifo.Item[*benchObj]) error {
		for i := range items {
			it := &items[i]
			d := it.Deltas[len(it.Deltas)-1]
			var err error
			if d.Type == deltafifo.Deleted {
				_, _, err = idx.DeleteKey(it.Key)
			} else {
				_, _, err = idx.Put(it.Key, d.Object)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	wg.Go(func() {
		for {
			if err := fifo.PopBatch(ctx, 1000, apply); err != nil {
				return
			}
			if fifo.HasSynced() {
				close(synced)
				return
			}
		}
	})
	<-synced
	cancel()
	wg.Wait()
	if idx.Len() != src.Len() {
		b.Fatalf("indexer holds %d objects after sync, source %d", idx.Len(), src.Len())
	}
}

// BenchmarkInitialSync measures an informer's first sync of 100k objects:
// from an in-memory source, through the reflector and a DeltaFIFO, into an
// Indexer. It reports the cost per object.
func BenchmarkInitialSync(b *testing.B) {
	const n = 100_000
	src := benchSource(b, n)
	for _, tc := range []struct {
		name string
		opts reflector.Options
	}{
		{"paginated-list", reflector.Options{Tuning: reflector.Tuning{DisableStreamingList: true}}},
		{"unpaginated-list", reflector.Options{Tuning: reflector.Tuning{DisableStreamingList: true, PageSize: -1}}},
		{"streaming-list", reflector.Options{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				initialSync(b, src, tc.opts)
			}
			runtime.ReadMemStats(&after)
			objects := float64(b.N) * n
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/objects, "ns/object")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/objects, "B/object")
		})
	}
}
