// Package indexer compares typedcache's indexer.Indexer with client-go's
// cache.Indexer: benchmarks of the same workloads through both, and a
// differential test that applies the same random operations to both and
// compares their contents and every index after each one.
//
// Both sides index the objects by namespace and by their "app" label.
package indexer
