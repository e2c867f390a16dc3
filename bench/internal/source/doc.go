// Package source provides in-memory sources for both implementations.
//
// ClientGo is a Kubernetes client of one fixture resource: a client-go
// cache.ListerWatcher and, through Kube, a kube.Client for typedcache's
// kube adapter, the path a Kubernetes user of typedcache takes. Both
// reflectors receive the same list of type L, as a generated client
// returns it after decoding, and each copies its items into objects of its
// own (client-go's meta.ExtractListWithAlloc, kube's List); both read the
// same watch channel. Idle is a client with no objects whose watches never
// send, for idle factories.
//
// Typed is a typedcache reflector.ListerWatcher of ConfigMaps that hands
// over pointers built before the benchmark's timer: typedcache's path for
// custom sources, which nothing copies.
//
// A List answers with a prepared set of objects; a watch streams whatever
// the benchmark sends. Nothing is decoded or checked.
package source
