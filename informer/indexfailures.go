package informer

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/typedcache/typedcache/indexer"
)

// An index function that fails on an object does not keep it out of the
// cache: the informer caches it with indexer.PutPartial, so that the cache
// holds what the source holds, and only the failing indexes leave it out
// until a later version of the object indexes cleanly. Handlers are told
// of the change as of any other. The divergence is made visible: every
// failure is counted in Stats.IndexFailures, the objects missing from an
// index in Stats.Unindexed, and the error handler hears of an object once,
// when it starts missing from an index, with its key and the index names
// (an *indexer.IndexError for each).

// indexFailures tracks the cached objects an index function failed on.
type indexFailures struct {
	// unindexed holds the keys of the cached objects that are missing
	// from at least one index; guarded by deltaMu.
	unindexed map[string]struct{}
	// count counts index function failures; size is len(unindexed).
	count atomic.Uint64
	size  atomic.Int64
}

// putLocked caches obj under key, reporting and counting index failures.
// It fails only if nothing was stored. Requires deltaMu held.
func (inf *Informer[T]) putLocked(key string, obj T) (old T, existed bool, err error) {
	old, existed, err = inf.cache.PutPartial(key, obj)
	switch {
	case err == nil:
		inf.indexedLocked(key)
	case isIndexError(err):
		inf.indexFailedLocked(key, err)
		err = nil
	}
	return old, existed, err
}

// isIndexError reports whether err holds an *indexer.IndexError. (A
// variable whose address errors.As takes escapes: putLocked would
// allocate it for every write.)
func isIndexError(err error) bool {
	_, ok := errors.AsType[*indexer.IndexError](err)
	return ok
}

// indexFailedLocked records that the indexes err names failed on the
// object cached under key, and reports it if that object was fully
// indexed until now. Requires deltaMu held.
func (inf *Informer[T]) indexFailedLocked(key string, err error) {
	f := &inf.indexFailures
	n := uint64(1)
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		n = uint64(len(joined.Unwrap()))
	}
	f.count.Add(n)
	if _, reported := f.unindexed[key]; reported {
		return
	}
	if f.unindexed == nil {
		f.unindexed = make(map[string]struct{})
	}
	f.unindexed[key] = struct{}{}
	f.size.Store(int64(len(f.unindexed)))
	inf.reportError(fmt.Errorf("informer: %q is cached but missing from an index until a version of it indexes cleanly (reported once): %w", key, err))
}

// indexedLocked records that the object cached under key, if any, is in
// every index. Requires deltaMu held.
func (inf *Informer[T]) indexedLocked(key string) {
	f := &inf.indexFailures
	if len(f.unindexed) == 0 {
		return
	}
	if _, ok := f.unindexed[key]; ok {
		delete(f.unindexed, key)
		f.size.Store(int64(len(f.unindexed)))
	}
}
