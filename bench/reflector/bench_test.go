package reflector_test

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/bench/internal/source"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// replaced is closed by a store's first Replace.
type replaced struct {
	done chan struct{}
	once sync.Once
}

func newReplaced() *replaced { return &replaced{done: make(chan struct{})} }

func (r *replaced) signal() { r.once.Do(func() { close(r.done) }) }

// typedStore is a plain typedcache store that reports when a Replace has
// been applied.
type typedStore struct {
	*indexer.Indexer[*corev1.ConfigMap]
	*replaced
}

func (s typedStore) Replace(items []*corev1.ConfigMap, _ string) error {
	err := s.Indexer.Replace(items)
	s.signal()
	return err
}

func (s typedStore) Resync() error { return nil }

// clientGoStore is the same for client-go.
type clientGoStore struct {
	cache.Store
	*replaced
}

func (s clientGoStore) Replace(items []any, rv string) error {
	err := s.Store.Replace(items, rv)
	s.signal()
	return err
}

// BenchmarkReflectorSync measures a reflector's initial sync: list the
// source and replace the store's content, until the store holds every
// object. The source's answer is built before the timer runs; stopping the
// reflector afterwards is not timed either.
//
// Both sides read the same in-memory client-go source, a ClientGo over
// ConfigMaps: on path=kube, typedcache's reflector reads it through the
// kube adapter, whose List copies each item out of the list as client-go's
// reflector does; on path=direct, typedcache reads its own source
// (source.Typed), which hands over pointers built in advance.
func BenchmarkReflectorSync(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"objects=10k", 10_000}, {"objects=100k", 100_000}} {
		n := measure.Size(size.n)
		b.Run(size.name, func(b *testing.B) {
			b.Run("path=kube", func(b *testing.B) {
				measure.Compare(b, func(b *testing.B) {
					src := source.NewClientGo(fixture.ConfigMaps, n)
					lw := kube.SourceWithOptions[*corev1.ConfigMap](src.Kube(), kube.Options{DisableStreamingList: true})
					typedSync(b, n, src.Prepare, lw)
				}, func(b *testing.B) { clientGoSync(b, n) })
			})
			b.Run("path=direct", func(b *testing.B) {
				measure.Compare(b, func(b *testing.B) {
					src := source.NewTyped(n)
					typedSync(b, n, src.Prepare, src)
				}, func(b *testing.B) { clientGoSync(b, n) })
			})
		})
	}
}

// typedSync is BenchmarkReflectorSync for typedcache's reflector over lw,
// whose next list prepare builds.
func typedSync(b *testing.B, n int, prepare func(), lw reflector.ListerWatcher[*corev1.ConfigMap]) {
	m := measure.PerItem(b, n, "object")
	for b.Loop() {
		m.Pause()
		prepare()
		store := typedStore{indexer.New(keys.Of[*corev1.ConfigMap], nil), newReplaced()}
		r := reflector.New(lw, store, reflector.Options{})
		m.Resume()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { r.Run(ctx) })
		<-store.done
		m.Pause()
		cancel()
		wg.Wait()
		if store.Len() != n {
			b.Fatalf("store has %d objects, want %d", store.Len(), n)
		}
		m.Resume()
	}
	m.Report()
}

// clientGoSync is BenchmarkReflectorSync for client-go's reflector.
func clientGoSync(b *testing.B, n int) {
	src := source.NewClientGo(fixture.ConfigMaps, n)
	m := measure.PerItem(b, n, "object")
	for b.Loop() {
		m.Pause()
		src.Prepare()
		store := clientGoStore{cache.NewStore(cache.MetaNamespaceKeyFunc), newReplaced()}
		r := cache.NewReflectorWithOptions(src, &corev1.ConfigMap{}, store, cache.ReflectorOptions{})
		m.Resume()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { r.RunWithContext(ctx) })
		<-store.done
		m.Pause()
		cancel()
		wg.Wait()
		if got := len(store.ListKeys()); got != n {
			b.Fatalf("store has %d objects, want %d", got, n)
		}
		m.Resume()
	}
	m.Report()
}
