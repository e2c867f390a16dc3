package indexer_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/indexer"
)

// randomUpdates returns the update stream of the mixed workloads: update i
// stores object order[i%n] alternately in its original state and at a new
// resource version (no index value changes), where order is a permutation
// of the stored objects fixed by a seed and computed here, before any
// timer starts.
func randomUpdates(seed uint64) func(i int) *corev1.ConfigMap {
	objs := objects()
	n := len(objs)
	order := rand.New(rand.NewPCG(seed, 1)).Perm(n)
	states := [2][]*corev1.ConfigMap{objs, make([]*corev1.ConfigMap, n)}
	for i, o := range objs {
		states[1][i] = fixture.WithVersion(o, n+i+1)
	}
	return func(i int) *corev1.ConfigMap { return states[(i/n+1)%2][order[i%n]] }
}

// BenchmarkIndexerUpdateRandom updates the stored objects in a random
// order (index values unchanged), and with list=everyN also lists the
// whole store with List after every N updates, as a controller that lists
// its cache while events arrive does. The List is part of the measured
// work: ns/update is the time per update with the lists amortized over
// the updates.
func BenchmarkIndexerUpdateRandom(b *testing.B) {
	next := randomUpdates(1)
	n := len(objects())
	for _, tc := range []struct {
		name      string
		listEvery int // 0: never
	}{
		{"list=never", 0},
		{"list=every1000", 1000},
		{"list=every100", 100},
	} {
		b.Run(tc.name, func(b *testing.B) {
			measure.Compare(b, func(b *testing.B) {
				x := filledTyped(b)
				m := measure.PerItem(b, 1, "update")
				i := 0
				for b.Loop() {
					if err := x.Update(next(i)); err != nil {
						b.Fatal(err)
					}
					i++
					if tc.listEvery > 0 && i%tc.listEvery == 0 {
						if got := len(x.List()); got != n {
							b.Fatal(got)
						}
					}
				}
				m.Report()
			}, func(b *testing.B) {
				x := filledClientGo(b)
				m := measure.PerItem(b, 1, "update")
				i := 0
				for b.Loop() {
					if err := x.Update(next(i)); err != nil {
						b.Fatal(err)
					}
					i++
					if tc.listEvery > 0 && i%tc.listEvery == 0 {
						if got := len(x.List()); got != n {
							b.Fatal(got)
						}
					}
				}
				m.Report()
			})
		})
	}
}

// BenchmarkIndexerReadsWhileWriting reads the store through each side's
// lister (read=get: Get by namespace and name, objects in a random order)
// or its namespace index (read=byindex: ByIndex(namespace), namespaces in
// turn) while another goroutine updates random objects without pause. It
// reports the reads per second and, as a side metric, the writer's
// updates per second during the same time.
func BenchmarkIndexerReadsWhileWriting(b *testing.B) {
	objs := objects()
	next := randomUpdates(2)
	order := rand.New(rand.NewPCG(3, 1)).Perm(len(objs))
	namespaces := make([]string, fixture.Namespaces)
	for i := range namespaces {
		namespaces[i] = fixture.Namespace(i)
	}
	perNamespace := len(objs) / fixture.Namespaces
	b.Run("read=get", func(b *testing.B) {
		measure.Compare(b, func(b *testing.B) {
			x := filledTyped(b)
			l := indexer.NewLister(x)
			whileWriting(b, func(i int) error { return x.Update(next(i)) }, func(i int) {
				o := objs[order[i%len(order)]]
				got, ok := l.Get(o.Namespace, o.Name)
				if !ok {
					b.Fatal("missing", o.Name)
				}
				sink = got
			})
		}, func(b *testing.B) {
			x := filledClientGo(b)
			l := corev1listers.NewConfigMapLister(x)
			whileWriting(b, func(i int) error { return x.Update(next(i)) }, func(i int) {
				o := objs[order[i%len(order)]]
				got, err := l.ConfigMaps(o.Namespace).Get(o.Name)
				if err != nil {
					b.Fatal(err)
				}
				sink = got
			})
		})
	})
	b.Run("read=byindex", func(b *testing.B) {
		measure.Compare(b, func(b *testing.B) {
			x := filledTyped(b)
			whileWriting(b, func(i int) error { return x.Update(next(i)) }, func(i int) {
				got, err := x.ByIndex(indexer.NamespaceIndex, namespaces[i%len(namespaces)])
				if err != nil || len(got) != perNamespace {
					b.Fatal(len(got), err)
				}
			})
		}, func(b *testing.B) {
			x := filledClientGo(b)
			whileWriting(b, func(i int) error { return x.Update(next(i)) }, func(i int) {
				got, err := x.ByIndex(cache.NamespaceIndex, namespaces[i%len(namespaces)])
				if err != nil || len(got) != perNamespace {
					b.Fatal(len(got), err)
				}
			})
		})
	})
}

// whileWriting calls read(i) for i = 0, 1, ... in the benchmark loop while
// another goroutine calls write(0), write(1), ... until the loop ends. It
// reports reads/s and the writes/s of the same interval.
func whileWriting(b *testing.B, write func(i int) error, read func(i int)) {
	var stop atomic.Bool
	var writes atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true) // also when read fails the benchmark
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			if err := write(i); err != nil {
				b.Error(err)
				return
			}
			writes.Add(1)
		}
	})
	// Writes are counted from the first read on, after b.Loop's first call
	// has reset the timer, to the end of the loop, which also includes the
	// final timer stop: a wait for the collection under way, if any, a few
	// milliseconds at most.
	var before int64
	i := 0
	for b.Loop() {
		if i == 0 {
			before = writes.Load()
		}
		read(i)
		i++
	}
	written := writes.Load() - before
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(i)/s, "reads/s")
		b.ReportMetric(float64(written)/s, "writes/s")
	}
}
