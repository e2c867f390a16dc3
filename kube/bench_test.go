package kube_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

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

// BenchmarkWatch measures the adapter's cost per watch event: one hop
// from client-go's channel to ours, with the type check.
func BenchmarkWatch(b *testing.B) {
	p := pod("a", "1")
	fw := watch.NewFake()
	lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{watcher: fw})
	w, err := lw.Watch(context.Background(), reflector.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	b.ReportAllocs()
	for b.Loop() {
		fw.Modify(&p)
		<-w.Events()
	}
}
