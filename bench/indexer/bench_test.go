package indexer_test

import (
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/indexer"
)

// objects are the 100k stored objects, spread over 100 namespaces.
var objects = sync.OnceValue(func() []*corev1.ConfigMap { return fixture.Set(measure.Size(100_000)) })

var sink *corev1.ConfigMap

func filledTyped(b *testing.B) *indexer.Indexer[*corev1.ConfigMap] {
	x := newTyped()
	for _, o := range objects() {
		if err := x.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

func filledClientGo(b *testing.B) cache.Indexer {
	x := newClientGo()
	for _, o := range objects() {
		if err := x.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

// BenchmarkIndexerAdd adds 100k objects in 100 namespaces to an empty
// indexer. It also reports the heap the filled indexer retains per object
// after a collection (heap-B/object), not counting the objects themselves,
// which both sides share.
func BenchmarkIndexerAdd(b *testing.B) {
	objs := objects()
	measure.Compare(b, func(b *testing.B) {
		m := measure.PerItem(b, len(objs), "object")
		for b.Loop() {
			filledTyped(b)
		}
		m.Report()
		b.ReportMetric(measure.Retained(len(objs), func() any { return filledTyped(b) }), "heap-B/object")
	}, func(b *testing.B) {
		m := measure.PerItem(b, len(objs), "object")
		for b.Loop() {
			filledClientGo(b)
		}
		m.Report()
		b.ReportMetric(measure.Retained(len(objs), func() any { return filledClientGo(b) }), "heap-B/object")
	})
}

// BenchmarkIndexerUpdate updates stored objects in turn to a new version:
// with labels=unchanged only the resource version differs, so no index
// value changes; with labels=changed the "app" label moves the object to
// another bucket of the label index.
func BenchmarkIndexerUpdate(b *testing.B) {
	objs := objects()
	for _, tc := range []struct {
		name   string
		update func(cm *corev1.ConfigMap, i int) *corev1.ConfigMap
	}{
		{"labels=unchanged", func(cm *corev1.ConfigMap, i int) *corev1.ConfigMap { return fixture.WithVersion(cm, len(objs)+i+1) }},
		{"labels=changed", func(cm *corev1.ConfigMap, i int) *corev1.ConfigMap { return fixture.WithApp(cm, len(objs)+i+1, i+1) }},
	} {
		// Each object alternates between its original and its updated state.
		states := [2][]*corev1.ConfigMap{objs, make([]*corev1.ConfigMap, len(objs))}
		for i, o := range objs {
			states[1][i] = tc.update(o, i)
		}
		next := func(i int) *corev1.ConfigMap { return states[(i/len(objs)+1)%2][i%len(objs)] }
		b.Run(tc.name, func(b *testing.B) {
			measure.Compare(b, func(b *testing.B) {
				x := filledTyped(b)
				i := 0
				for b.Loop() {
					if err := x.Update(next(i)); err != nil {
						b.Fatal(err)
					}
					i++
				}
			}, func(b *testing.B) {
				x := filledClientGo(b)
				i := 0
				for b.Loop() {
					if err := x.Update(next(i)); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}

// BenchmarkIndexerGetByKey looks up stored objects by key in turn.
func BenchmarkIndexerGetByKey(b *testing.B) {
	keys := fixture.Keys(len(objects()))
	measure.Compare(b, func(b *testing.B) {
		x := filledTyped(b)
		i := 0
		for b.Loop() {
			o, ok := x.GetByKey(keys[i%len(keys)])
			if !ok {
				b.Fatal("missing")
			}
			sink = o
			i++
		}
	}, func(b *testing.B) {
		x := filledClientGo(b)
		i := 0
		for b.Loop() {
			o, ok, err := x.GetByKey(keys[i%len(keys)])
			if !ok || err != nil {
				b.Fatal("missing", err)
			}
			sink = o.(*corev1.ConfigMap)
			i++
		}
	})
}

// BenchmarkIndexerByIndex lists the objects of one namespace (1% of the
// store) through the namespace index, namespaces in turn.
func BenchmarkIndexerByIndex(b *testing.B) {
	namespaces := make([]string, fixture.Namespaces)
	for i := range namespaces {
		namespaces[i] = fixture.Namespace(i)
	}
	want := len(objects()) / fixture.Namespaces
	measure.Compare(b, func(b *testing.B) {
		x := filledTyped(b)
		i := 0
		for b.Loop() {
			objs, err := x.ByIndex(indexer.NamespaceIndex, namespaces[i%len(namespaces)])
			if err != nil || len(objs) != want {
				b.Fatal(len(objs), err)
			}
			i++
		}
	}, func(b *testing.B) {
		x := filledClientGo(b)
		i := 0
		for b.Loop() {
			objs, err := x.ByIndex(cache.NamespaceIndex, namespaces[i%len(namespaces)])
			if err != nil || len(objs) != want {
				b.Fatal(len(objs), err)
			}
			i++
		}
	})
}

// BenchmarkIndexerList copies every object out with List.
func BenchmarkIndexerList(b *testing.B) {
	n := len(objects())
	measure.Compare(b, func(b *testing.B) {
		x := filledTyped(b)
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			if got := len(x.List()); got != n {
				b.Fatal(got)
			}
		}
		m.Report()
	}, func(b *testing.B) {
		x := filledClientGo(b)
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			if got := len(x.List()); got != n {
				b.Fatal(got)
			}
		}
		m.Report()
	})
}

// BenchmarkIndexerIterate visits every object in the cheapest way each side
// offers: typedcache's All iterator, client-go's List (it has no
// iterator).
func BenchmarkIndexerIterate(b *testing.B) {
	n := len(objects())
	measure.Compare(b, func(b *testing.B) {
		x := filledTyped(b)
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			seen := 0
			for _, o := range x.All() {
				sink = o
				seen++
			}
			if seen != n {
				b.Fatal(seen)
			}
		}
		m.Report()
	}, func(b *testing.B) {
		x := filledClientGo(b)
		m := measure.PerItem(b, n, "object")
		for b.Loop() {
			seen := 0
			for _, o := range x.List() {
				sink = o.(*corev1.ConfigMap)
				seen++
			}
			if seen != n {
				b.Fatal(seen)
			}
		}
		m.Report()
	})
}
