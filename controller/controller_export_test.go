package controller

import (
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
)

// ForHandler and WatchHandler return the handlers ForKey and Watches
// register for c, so that tests can deliver events the informers rarely
// produce, such as a deletion whose last state is unknown.
func ForHandler[T keys.Object, K comparable](c *Controller[K], keyOf func(string) (K, error)) informer.Handler[T] {
	return forHandler[T, K]{c: c, keyOf: keyOf}
}

func WatchHandler[T keys.Object, K comparable](c *Controller[K], mapFn func(T) []K) informer.Handler[T] {
	return watchHandler[T, K]{c: c, mapFn: mapFn}
}
