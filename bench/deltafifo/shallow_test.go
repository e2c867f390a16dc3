package deltafifo_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/deltafifo"
)

// shallowKeys is the most keys the shallow benchmarks queue at once: an
// informer that keeps up with its watch holds a few keys at a time.
const shallowKeys = 8

// popBatchKeys is the batch size of typedcache's informer, and client-go's
// RealFIFO's: the most keys one PopBatch takes.
const popBatchKeys = 1000

// BenchmarkDeltaFIFOShallow adds 8 objects, updates each once and then
// takes them out, over 10k objects in turn, so that at most 8 keys are
// queued at any time.
//
// With against=DeltaFIFO, both sides pop one key at a time, typedcache's
// DeltaFIFO against client-go's DeltaFIFO, each key with its two deltas.
// With against=RealFIFO, the client-go side is the RealFIFO its informers
// have used since v0.35, built as they build it (atomic events, unlocked
// while processing, no known objects): a log of deltas that does not merge
// a key's deltas. Both sides then take what is queued with PopBatch (up to
// 1000 keys, as both informers do): typedcache one batch of 8 keys with 2
// deltas each, client-go two batches of 8 deltas, since its batch ends at
// a key seen twice.
func BenchmarkDeltaFIFOShallow(b *testing.B) {
	n := measure.Size(10_000) / shallowKeys * shallowKeys
	objs := fixture.Set(n)
	updated := make([]*corev1.ConfigMap, n)
	for i, o := range objs {
		updated[i] = fixture.WithVersion(o, n+i+1)
	}
	// fill adds and updates the objects of group g.
	fill := func(b *testing.B, g int, add, update func(*corev1.ConfigMap) error) {
		for _, o := range objs[g : g+shallowKeys] {
			if err := add(o); err != nil {
				b.Fatal(err)
			}
		}
		for _, o := range updated[g : g+shallowKeys] {
			if err := update(o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("against=DeltaFIFO", func(b *testing.B) {
		measure.Compare(b, func(b *testing.B) {
			ctx := context.Background()
			f := newTypedFIFO(newTypedStore())
			deltas := 0
			count := func(_ string, d deltafifo.Deltas[*corev1.ConfigMap], _ bool) error {
				deltas += len(d)
				return nil
			}
			round := func() {
				for g := 0; g < n; g += shallowKeys {
					fill(b, g, f.Add, f.Update)
					for range shallowKeys {
						if err := f.Pop(ctx, count); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			runShallow(b, n, round, &deltas)
		}, func(b *testing.B) {
			f := newClientGoFIFO(newClientGoStore())
			deltas := 0
			count := func(obj any, _ bool) error {
				deltas += len(obj.(cache.Deltas))
				return nil
			}
			add := func(o *corev1.ConfigMap) error { return f.Add(o) }
			update := func(o *corev1.ConfigMap) error { return f.Update(o) }
			round := func() {
				for g := 0; g < n; g += shallowKeys {
					fill(b, g, add, update)
					for range shallowKeys {
						if _, err := f.Pop(count); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			runShallow(b, n, round, &deltas)
		})
	})
	b.Run("against=RealFIFO", func(b *testing.B) {
		measure.Compare(b, func(b *testing.B) {
			ctx := context.Background()
			f := newTypedFIFO(newTypedStore())
			deltas := 0
			count := func(items []deltafifo.Item[*corev1.ConfigMap]) error {
				for _, it := range items {
					deltas += len(it.Deltas)
				}
				return nil
			}
			round := func() {
				for g := 0; g < n; g += shallowKeys {
					fill(b, g, f.Add, f.Update)
					for f.Len() > 0 {
						if err := f.PopBatch(ctx, popBatchKeys, count); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			runShallow(b, n, round, &deltas)
		}, func(b *testing.B) {
			f := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{
				KeyFunction:           cache.MetaNamespaceKeyFunc,
				AtomicEvents:          true,
				UnlockWhileProcessing: true,
			})
			deltas := 0
			batch := func(ds []cache.Delta, _ bool) error {
				deltas += len(ds)
				return nil
			}
			single := func(obj any, _ bool) error {
				deltas += len(obj.(cache.Deltas))
				return nil
			}
			add := func(o *corev1.ConfigMap) error { return f.Add(o) }
			update := func(o *corev1.ConfigMap) error { return f.Update(o) }
			round := func() {
				for g := 0; g < n; g += shallowKeys {
					fill(b, g, add, update)
					for popped := deltas + 2*shallowKeys; deltas < popped; {
						if err := f.PopBatch(batch, single); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			runShallow(b, n, round, &deltas)
		})
	})
}

// runShallow runs round, which moves 2n deltas through a FIFO and counts
// them in *deltas, once to warm up and then in the benchmark loop, and
// reports the costs per delta.
func runShallow(b *testing.B, n int, round func(), deltas *int) {
	round()
	*deltas = 0
	m := measure.PerItem(b, 2*n, "delta")
	rounds := 0
	for b.Loop() {
		round()
		rounds++
	}
	m.Report()
	if *deltas != 2*n*rounds {
		b.Fatalf("popped %d deltas, want %d", *deltas, 2*n*rounds)
	}
}
