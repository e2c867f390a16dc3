package kube_test

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/kube"
)

// fakeClient is a kube.Client[L] whose answers the test sets and whose
// requests it records. Like a generated typed client, it reports its
// namespace, "ns".
type fakeClient[L kube.ListObject] struct {
	mu       sync.Mutex
	list     L
	listErr  error
	watcher  watch.Interface
	watchErr error
	requests []metav1.ListOptions
}

func (c *fakeClient[L]) GetNamespace() string { return "ns" }

func (c *fakeClient[L]) List(_ context.Context, opts metav1.ListOptions) (L, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, opts)
	return c.list, c.listErr
}

func (c *fakeClient[L]) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, opts)
	if c.watchErr != nil {
		return nil, c.watchErr
	}
	return c.watcher, nil
}

func (c *fakeClient[L]) lastRequest() metav1.ListOptions {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests[len(c.requests)-1]
}
