// Package reflector compares typedcache's reflector.Reflector with
// client-go's cache.Reflector: the initial sync of a store from an
// in-memory source (internal/source), each side writing into its own
// plain keyed store (an index-free indexer). On path=kube typedcache reads
// client-go's source through the kube adapter, as a Kubernetes user does;
// on path=direct it reads its own source of prebuilt objects.
package reflector
