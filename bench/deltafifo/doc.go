// Package deltafifo compares typedcache's deltafifo.DeltaFIFO with
// client-go's standalone cache.DeltaFIFO (the per-key queue, not the
// RealFIFO client-go's informers use), each with its own indexer as
// KnownObjects: benchmarks of the same workloads through both, and a
// differential test that requires the same popped keys and deltas.
package deltafifo
