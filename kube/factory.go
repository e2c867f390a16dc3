package kube

import "github.com/typedcache/typedcache/informer"

// For returns factory's informer for the objects of type T that client
// lists and watches, creating it on the first call for that source: the
// shared informer of a Kubernetes resource in one line,
//
//	pods := kube.For[*corev1.Pod](factory, clientset.CoreV1().Pods(namespace))
//
// It is informer.For(factory, Source[T](client)); use that form with
// SourceWithOptions for selectors, with Dynamic or Metadata for those
// clients, or informer.ForWithOptions for indexes and transforms. Later
// calls with a typed client of the same namespace return the same
// informer, and a typed client of another namespace gets its own (see
// ListerWatcher.Identity). A client whose resource or namespace Source
// cannot read, such as the dynamic or metadata client's resource
// interfaces, gets a new informer from every call: use Dynamic or Metadata
// to share one.
func For[T Object, L ListObject](factory *informer.Factory, client Client[L]) *informer.Informer[T] {
	return informer.For(factory, Source[T](client))
}
