package kube

import "github.com/typedcache/typedcache/informer"

// For returns factory's informer for T, fed by client on the first call
// for T: the shared informer of a Kubernetes resource in one line,
//
//	pods := kube.For[*corev1.Pod](factory, clientset.CoreV1().Pods(namespace))
//
// It is informer.For(factory, Source[T](client)); use that form with
// SourceWithOptions for selectors, or informer.ForWithOptions for indexes
// and transforms. Like informer.For, later calls for the same T return the
// same informer and ignore client.
func For[T Object, L ListObject](factory *informer.Factory, client Client[L]) *informer.Informer[T] {
	return informer.For(factory, Source[T](client))
}
