package kube_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// TestFor runs a factory's informer over a client that answers a listing
// (classic or streaming) with one pod, then watches: the informer syncs
// and sees the watched pod, typed.
func TestFor(t *testing.T) {
	a, b := pod("a", "1"), pod("b", "2")
	fw := watch.NewFakeWithChanSize(3, false)
	c := &fakeClient[*corev1.PodList]{
		list:    &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{a}},
		watcher: fw,
	}
	if kube.Source[*corev1.Pod](c).Capabilities().StreamingList {
		fw.Add(&a)
		fw.Action(watch.Bookmark, bookmark("1", true))
	}
	f := informer.NewFactory(informer.FactoryOptions{})
	pods := kube.For[*corev1.Pod](f, c)
	if again := kube.For[*corev1.Pod](f, c); again != pods {
		t.Error("second For for the same type returned another informer")
	}
	added := make(chan string, 2)
	if _, err := pods.AddEventHandler(informer.HandlerFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, _ bool) { added <- p.Name },
	}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	f.Start(ctx)
	defer f.Shutdown()
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok := pods.Lister().Get("ns", "a"); !ok || got.Name != "a" {
		t.Errorf("Lister().Get(ns, a) = %v, %v; want the listed pod", got, ok)
	}
	fw.Add(&b)
	for _, want := range []string{"a", "b"} {
		if got := <-added; got != want {
			t.Errorf("handler saw %s, want %s", got, want)
		}
	}
}
