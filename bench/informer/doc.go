// Package informer compares typedcache's informer.Informer with client-go's
// SharedIndexInformer, both fed by equivalent in-memory sources
// (internal/source) over the same ConfigMaps and both indexing them by
// namespace: initial sync, watch-event throughput to one and four handlers,
// send-to-handler latency at fixed rates, and write throughput while other
// goroutines list the whole cache.
package informer
