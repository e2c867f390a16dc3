// Package reflector compares typedcache's reflector.Reflector with
// client-go's cache.Reflector: the initial sync of a store from an
// in-memory source (internal/source), each side writing into its own
// plain keyed store (an index-free indexer).
package reflector
