package informer

import "github.com/typedcache/typedcache/reflector"

// Stats is a snapshot of an informer's state and counters, for metrics:
// Informer.Stats returns it, and Options.Metrics hands that method to a
// metrics exporter.
type Stats struct {
	// Cached is the number of objects in the cache.
	Cached int
	// Queued is the number of keys whose deltas wait in the informer's
	// DeltaFIFO for the processing goroutine (client-go's
	// informer_queued_items). Watch events and lists that the
	// reflector's goroutine applies itself (see Run) are never queued.
	Queued int
	// Reflector holds the counters of the informer's reflector; it is the
	// zero value before Run.
	Reflector reflector.Stats
	// Handlers holds the statistics of the registered handlers, in the
	// order they were added; a removed handler is no longer listed.
	Handlers []NamedHandlerStats
	// IndexFailures counts the failures of index functions on the objects
	// the informer cached: one per index whose function failed, for each
	// version of an object written to the cache. The objects are cached
	// nonetheless (see Unindexed).
	IndexFailures uint64
	// Unindexed is the number of cached objects that are missing from at
	// least one index because its function failed on their latest
	// version: Cache.ByIndex, Cache.Index and Lister.Namespace do not
	// find them there, while GetByKey, List and Lister.Get do.
	Unindexed int
}

// NamedHandlerStats is the snapshot of one registration's counters, with
// its handler's name (Registration.Name).
type NamedHandlerStats struct {
	Name string
	HandlerStats
}

// Stats returns a snapshot of the informer's state and counters. Each
// field is read on its own, so fields read at slightly different instants
// need not agree with each other. Stats allocates the Handlers slice and
// nothing else; it takes the informer's lock and each handler's buffer
// lock briefly, and never waits for a handler.
func (inf *Informer[T]) Stats() Stats {
	if inf.cache == nil { // a zero Informer
		return Stats{}
	}
	s := Stats{
		Cached:        inf.cache.Len(),
		Queued:        inf.fifo.Len(),
		IndexFailures: inf.indexFailures.count.Load(),
		Unindexed:     int(inf.indexFailures.size.Load()),
	}
	inf.mu.Lock()
	refl := inf.refl
	inf.mu.Unlock()
	if refl != nil {
		s.Reflector = refl.Stats()
	}
	ls := *inf.listeners.Load()
	s.Handlers = make([]NamedHandlerStats, len(ls))
	for i, l := range ls {
		s.Handlers[i] = NamedHandlerStats{Name: l.Name(), HandlerStats: HandlerStats(l.Stats())}
	}
	return s
}
