package kube_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// BenchmarkList measures the adapter's cost per listed item: moving the
// items of a decoded *PodList into a []*Pod.
func BenchmarkList(b *testing.B) {
	list := &corev1.PodList{Items: make([]corev1.Pod, 500)}
	for i := range list.Items {
		list.Items[i] = pod(fmt.Sprint(i), "1")
	}
	lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{list: list})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lw.List(ctx, reflector.ListOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(list.Items)), "ns/item")
}

// BenchmarkWatch measures the adapter's cost per watch event as a reader
// sees it: client-go's watch is fed by another goroutine through a channel
// of 100 events (a decoding goroutine's place), and the benchmark reads
// each event through the adapter.
func BenchmarkWatch(b *testing.B) {
	p := pod("a", "1")
	fw := watch.NewFakeWithChanSize(100, false)
	lw := kube.SourceWithOptions[*corev1.Pod](&fakeClient[*corev1.PodList]{watcher: fw}, kube.Options{DisableStreamingList: true})
	ctx := context.Background()
	w, err := lw.Watch(ctx, reflector.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	b.ReportAllocs()
	wg.Go(func() {
		for range b.N {
			fw.Modify(&p)
		}
	})
	for range b.N {
		if _, err := w.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInformerEvents measures watch events through the adapter into
// an informer with one handler: the path a Kubernetes controller runs.
// Events are sent through a client-go watch channel of 100 events.
func BenchmarkInformerEvents(b *testing.B) {
	b.Setenv(informer.MutationDetectorEnv, "false") // the informer alone; TestMain turns the detector on for tests
	const objects = 1000
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: make([]corev1.Pod, objects)}
	// Two states per object, sent in turn, so that no update repeats the
	// cached version.
	var states [2][]*corev1.Pod
	for i := range list.Items {
		list.Items[i] = pod(fmt.Sprint("p", i), "1")
		for v := range states {
			p := pod(fmt.Sprint("p", i), fmt.Sprint(v+2))
			states[v] = append(states[v], &p)
		}
	}
	fw := watch.NewFakeWithChanSize(100, false)
	lw := kube.SourceWithOptions[*corev1.Pod](&fakeClient[*corev1.PodList]{list: list, watcher: fw}, kube.Options{DisableStreamingList: true})
	inf := informer.New(lw, informer.Options[*corev1.Pod]{Logger: slog.New(slog.DiscardHandler)})
	var seen atomic.Int64
	want := make(chan struct{}, 1)
	var target atomic.Int64
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.Pod]{
		UpdateFunc: func(_, _ *corev1.Pod) {
			if seen.Add(1) == target.Load() {
				want <- struct{}{}
			}
		},
	}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	target.Store(int64(b.N))
	for i := range b.N {
		fw.Modify(states[i/objects%2][i%objects])
	}
	<-want
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
