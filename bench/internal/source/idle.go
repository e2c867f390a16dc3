package source

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/kube"
)

// Idle is a Kubernetes client of one resource, listed as L, that has no
// objects: each List returns a new empty list at resource version 1, and
// each watch stays open, sending nothing, until it is stopped. It is a
// kube.Client[L]; its methods are also the list and watch functions of a
// client-go cache.ListWatch. It is safe for simultaneous use by multiple
// goroutines.
type Idle[L kube.ListObject] struct {
	newList func() L
	once    sync.Once
	watched chan struct{} // closed by the first Watch
}

// NewIdle returns an idle client of lists of type *X.
func NewIdle[X any, L interface {
	*X
	kube.ListObject
}]() *Idle[L] {
	return &Idle[L]{newList: func() L { return L(new(X)) }, watched: make(chan struct{})}
}

// List returns an empty list.
func (c *Idle[L]) List(context.Context, metav1.ListOptions) (L, error) {
	l := c.newList()
	l.SetResourceVersion("1")
	return l, nil
}

// Watch returns a watch that sends nothing; its channel closes on Stop.
func (c *Idle[L]) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	c.once.Do(func() { close(c.watched) })
	return watch.NewFake(), nil
}

// Watched is closed once a consumer has called Watch.
func (c *Idle[L]) Watched() <-chan struct{} { return c.watched }

// IsWatchListSemanticsUnSupported tells client-go's reflector, through
// cache.ToListWatcherWithWatchListSemantics, to list and watch rather than
// stream the initial list.
func (c *Idle[L]) IsWatchListSemanticsUnSupported() bool { return true }
