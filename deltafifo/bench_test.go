package deltafifo_test

import (
	"fmt"
	"testing"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// benchObj is shaped like a small Kubernetes object: the key and version
// fields the FIFO reads, plus labels and data it carries along.
type benchObj struct {
	Namespace, Name, ResourceVersion string
	Labels, Data                     map[string]string
}

func (o *benchObj) GetNamespace() string       { return o.Namespace }
func (o *benchObj) GetName() string            { return o.Name }
func (o *benchObj) GetResourceVersion() string { return o.ResourceVersion }

func benchObjs(n int) []*benchObj {
	out := make([]*benchObj, n)
	for i := range out {
		out[i] = &benchObj{
			Namespace:       fmt.Sprintf("ns-%02d", i%50),
			Name:            fmt.Sprintf("cm-%06d", i),
			ResourceVersion: fmt.Sprint(1000 + i),
			Labels:          map[string]string{"app": "bench", "tier": fmt.Sprint(i % 3), "shard": fmt.Sprint(i % 7)},
			Data:            map[string]string{"a": fmt.Sprintf("%032d", i), "b": fmt.Sprintf("%032d", i+1), "c": fmt.Sprintf("%032d", i+2)},
		}
	}
	return out
}

var benchKey = keys.Of[*benchObj]

// BenchmarkAddUpdatePop adds and updates 10k distinct objects, then pops
// them one key at a time, on a FIFO that lives across iterations.
func BenchmarkAddUpdatePop(b *testing.B) {
	const n = 10_000
	objs := benchObjs(n)
	f := deltafifo.New(benchKey, deltafifo.Options[*benchObj]{KnownObjects: indexer.New(benchKey, nil)})
	process := func(string, deltafifo.Deltas[*benchObj], bool) error { return nil }
	for b.Loop() {
		for _, o := range objs {
			if err := f.Add(o); err != nil {
				b.Fatal(err)
			}
			if err := f.Update(o); err != nil {
				b.Fatal(err)
			}
		}
		for range n {
			if err := f.Pop(b.Context(), process); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/delta")
}

// BenchmarkAddUpdatePopBatch is BenchmarkAddUpdatePop with batches of 1000
// keys, the informer's path.
func BenchmarkAddUpdatePopBatch(b *testing.B) {
	const n = 10_000
	objs := benchObjs(n)
	f := deltafifo.New(benchKey, deltafifo.Options[*benchObj]{KnownObjects: indexer.New(benchKey, nil)})
	process := func([]deltafifo.Item[*benchObj]) error { return nil }
	for b.Loop() {
		for _, o := range objs {
			if err := f.Add(o); err != nil {
				b.Fatal(err)
			}
			if err := f.Update(o); err != nil {
				b.Fatal(err)
			}
		}
		for f.Len() > 0 {
			if err := f.PopBatch(b.Context(), 1000, process); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/delta")
}

// BenchmarkReplace relists 100k objects into a new FIFO whose cache holds
// the same 100k objects: the steady-state relist.
func BenchmarkReplace(b *testing.B) {
	const n = 100_000
	objs := benchObjs(n)
	cache := indexer.New(benchKey, nil)
	for _, o := range objs {
		if err := cache.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		f := deltafifo.New(benchKey, deltafifo.Options[*benchObj]{KnownObjects: cache})
		if err := f.Replace(objs, "1"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}
