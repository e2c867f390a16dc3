package deltafifo_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

func newTypedStore() *indexer.Indexer[*corev1.ConfigMap] {
	return indexer.New(keys.Of[*corev1.ConfigMap], nil)
}

func newClientGoStore() cache.Indexer {
	return cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})
}

func newTypedFIFO(known *indexer.Indexer[*corev1.ConfigMap]) *deltafifo.DeltaFIFO[*corev1.ConfigMap] {
	return deltafifo.New(keys.Of[*corev1.ConfigMap], deltafifo.Options[*corev1.ConfigMap]{KnownObjects: known})
}

func newClientGoFIFO(known cache.Indexer) *cache.DeltaFIFO {
	return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          known,
		EmitDeltaTypeReplaced: true,
	})
}

// BenchmarkDeltaFIFOAddUpdatePop adds 10k objects, updates each once and
// then pops every key, each with its two deltas. Each side makes its FIFO
// once, fills and drains it once before measuring, and every iteration
// leaves it empty again, as an informer's FIFO, which lives as long as the
// process, keeps being filled and drained: the figures are those of the
// steady state, not of a new FIFO's first growth.
func BenchmarkDeltaFIFOAddUpdatePop(b *testing.B) {
	n := measure.Size(10_000)
	objs := fixture.Set(n)
	updated := make([]*corev1.ConfigMap, n)
	for i, o := range objs {
		updated[i] = fixture.WithVersion(o, n+i+1)
	}
	measure.Compare(b, func(b *testing.B) {
		ctx := context.Background()
		f := newTypedFIFO(newTypedStore())
		round := func() {
			for _, o := range objs {
				if err := f.Add(o); err != nil {
					b.Fatal(err)
				}
			}
			for _, o := range updated {
				if err := f.Update(o); err != nil {
					b.Fatal(err)
				}
			}
			deltas := 0
			for range n {
				err := f.Pop(ctx, func(_ string, d deltafifo.Deltas[*corev1.ConfigMap], _ bool) error {
					deltas += len(d)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if deltas != 2*n {
				b.Fatalf("popped %d deltas, want %d", deltas, 2*n)
			}
		}
		round()
		m := measure.PerItem(b, 2*n, "delta")
		for b.Loop() {
			round()
		}
		m.Report()
	}, func(b *testing.B) {
		f := newClientGoFIFO(newClientGoStore())
		round := func() {
			for _, o := range objs {
				if err := f.Add(o); err != nil {
					b.Fatal(err)
				}
			}
			for _, o := range updated {
				if err := f.Update(o); err != nil {
					b.Fatal(err)
				}
			}
			deltas := 0
			for range n {
				_, err := f.Pop(func(obj any, _ bool) error {
					deltas += len(obj.(cache.Deltas))
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if deltas != 2*n {
				b.Fatalf("popped %d deltas, want %d", deltas, 2*n)
			}
		}
		round()
		m := measure.PerItem(b, 2*n, "delta")
		for b.Loop() {
			round()
		}
		m.Report()
	})
}

// BenchmarkDeltaFIFOReplace replaces the content of a new FIFO whose
// consumer knows 100k objects with a list of 100k objects, 1% of them new:
// 100k Replaced deltas and 1k inferred deletions.
func BenchmarkDeltaFIFOReplace(b *testing.B) {
	n := measure.Size(100_000)
	churn := n / 100
	objs := fixture.Set(n + churn)
	known, listed := objs[:n], objs[churn:]
	listedAny := make([]any, len(listed))
	for i, o := range listed {
		listedAny[i] = o
	}
	measure.Compare(b, func(b *testing.B) {
		store := newTypedStore()
		if err := store.Replace(known); err != nil {
			b.Fatal(err)
		}
		list := make([]*corev1.ConfigMap, len(listed))
		replace := func() *deltafifo.DeltaFIFO[*corev1.ConfigMap] {
			f := newTypedFIFO(store)
			copy(list, listed) // Replace owns its argument
			if err := f.Replace(list, "1"); err != nil {
				b.Fatal(err)
			}
			return f
		}
		if got := replace().Len(); got != n+churn {
			b.Fatalf("Replace queued %d keys, want %d", got, n+churn)
		}
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			replace()
		}
		m.Report()
	}, func(b *testing.B) {
		store := newClientGoStore()
		knownAny := make([]any, len(known))
		for i, o := range known {
			knownAny[i] = o
		}
		if err := store.Replace(knownAny, "1"); err != nil {
			b.Fatal(err)
		}
		replace := func() *cache.DeltaFIFO {
			f := newClientGoFIFO(store)
			if err := f.Replace(listedAny, "1"); err != nil {
				b.Fatal(err)
			}
			return f
		}
		if got := clientGoLen(replace()); got != n+churn {
			b.Fatalf("Replace queued %d keys, want %d", got, n+churn)
		}
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			replace()
		}
		m.Report()
	})
}

// clientGoLen pops everything from f and returns the number of keys; the
// client-go DeltaFIFO has no other way to tell.
func clientGoLen(f *cache.DeltaFIFO) int {
	f.Close() // Pop still hands out what is queued, then fails
	n := 0
	for {
		if _, err := f.Pop(func(any, bool) error { return nil }); err != nil {
			return n
		}
		n++
	}
}
