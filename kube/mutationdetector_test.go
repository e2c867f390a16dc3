package kube_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// The cache mutation detector copies Kubernetes objects with their own
// DeepCopy: a handler that labels a cached Pod makes Run report its key
// and the diff.
func TestMutationDetectorOnPods(t *testing.T) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{pod("web", "1")}}
	lw := kube.SourceWithOptions[*corev1.Pod](&fakeClient[*corev1.PodList]{list: list, watcher: watch.NewFake()}, kube.Options{DisableStreamingList: true})
	inf := informer.New(lw, informer.Options[*corev1.Pod]{
		Logger: slog.New(slog.DiscardHandler),
		// The check at shutdown, after the handler returned, is the one
		// this test needs.
		MutationDetector: informer.MutationDetector[*corev1.Pod]{Enabled: true, Period: time.Hour},
	})
	added := make(chan struct{})
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, _ bool) {
			p.Labels = map[string]string{"scribbled": "yes"}
			close(added)
		},
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	<-added
	cancel()
	err := <-done
	me, ok := errors.AsType[*informer.CacheMutationError](err)
	if !ok {
		t.Fatalf("Run() = %v, want a *informer.CacheMutationError", err)
	}
	if me.Key != "ns/web" || !strings.Contains(me.Diff, "scribbled") {
		t.Errorf("Run() reports key %q and diff\n%s\nwant key ns/web and the new label", me.Key, me.Diff)
	}
}
