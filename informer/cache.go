package informer

import (
	"iter"

	"github.com/typedcache/typedcache/indexer"
)

// Cache is the read-only view of an informer's cache: the read methods of
// indexer.Indexer, which behave as documented there, and no way to reach
// its writes, so that only the informer changes what it caches.
//
// A Cache is a small value; copies read the same cache. It is safe for
// simultaneous use by multiple goroutines. Returned objects are the cached
// ones, shared with every handler and lister: callers must not modify them.
type Cache[T any] struct {
	x *indexer.Indexer[T]
}

// GetByKey returns the object cached under key.
func (c Cache[T]) GetByKey(key string) (T, bool) { return c.x.GetByKey(key) }

// Len returns the number of cached objects.
func (c Cache[T]) Len() int { return c.x.Len() }

// List returns a snapshot of the cached objects.
func (c Cache[T]) List() []T { return c.x.List() }

// ListKeys returns a snapshot of the cache's keys.
func (c Cache[T]) ListKeys() []string { return c.x.ListKeys() }

// All iterates over a snapshot of the keys and objects, with no lock held
// during yield.
func (c Cache[T]) All() iter.Seq2[string, T] { return c.x.All() }

// Keys iterates over a snapshot of the keys, with no lock held during
// yield.
func (c Cache[T]) Keys() iter.Seq[string] { return c.x.Keys() }

// Index returns the objects that share a value of the named index with
// obj.
func (c Cache[T]) Index(indexName string, obj T) ([]T, error) { return c.x.Index(indexName, obj) }

// ByIndex returns the objects with the given value of the named index.
func (c Cache[T]) ByIndex(indexName, value string) ([]T, error) {
	return c.x.ByIndex(indexName, value)
}

// IndexKeys returns the sorted keys of the objects with the given value of
// the named index.
func (c Cache[T]) IndexKeys(indexName, value string) ([]string, error) {
	return c.x.IndexKeys(indexName, value)
}

// ListIndexFuncValues returns the sorted values of the named index.
func (c Cache[T]) ListIndexFuncValues(indexName string) ([]string, error) {
	return c.x.ListIndexFuncValues(indexName)
}
