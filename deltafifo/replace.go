package deltafifo

import "fmt"

// Replace records a relist: list is the source's complete content (at
// resource version rv, which the DeltaFIFO does not use). Every listed
// object gets a Replaced delta. Every key
// that has deltas in the FIFO, or is in KnownObjects, but is missing from
// the list gets one inferred deletion (Delta.Inferred) carrying the newest
// state known of it: its newest delta, else the cached object.
//
// Keys and transforms are computed first; if any fails, Replace returns the
// error and queues nothing. The change is atomic: a Pop sees all of it or
// none of it. The first Replace defines what HasSynced waits for.
func (f *DeltaFIFO[T]) Replace(list []T, rv string) error {
	if f.zero() {
		return errZero
	}
	keys := make([]string, len(list))
	objs := list
	if f.transform != nil {
		objs = make([]T, len(list))
	}
	for i, obj := range list {
		key, obj, err := f.prepare(obj)
		if err != nil {
			return fmt.Errorf("deltafifo: replace: item %d: %w", i, err)
		}
		keys[i] = key
		objs[i] = obj
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	first := !f.populated
	f.populated = true
	if f.slots.live() == 0 && len(keys) > f.indexHint {
		f.resetIndexLocked(len(keys))
	}
	f.slots.reserve(len(keys))
	f.nextGenerationLocked()

	queued := f.ready.Len() // the keys queued before: the ring's first slots
	for i, key := range keys {
		p, j := f.addLocked(key, Delta[T]{Type: Replaced, Object: objs[i]})
		f.markInitialLocked(j, first)
		f.slots.at(p).listed = f.gen
	}

	// Keys with deltas in the FIFO, queued or in flight, but not in the list.
	for k := range queued {
		f.inferDeletionLocked(f.ready.At(k), first)
	}
	if f.inflight > 0 {
		for i := int32(1); i < f.slots.len(); i++ {
			if f.slots.at(i).state == slotInFlight {
				f.inferDeletionLocked(i, first)
			}
		}
	}

	// Known keys with nothing in the FIFO and not in the list. A cache
	// filled from an earlier list usually yields its keys in the order of
	// this one, give or take an object created or deleted since; such keys
	// are matched by position, sparing an index lookup each.
	if f.known != nil {
		next := 0 // position in keys of the next known key, if in order
		for key := range f.known.Keys() {
			if next < len(keys) && keys[next] == key {
				next++
				continue
			}
			if next+1 < len(keys) && keys[next+1] == key {
				next += 2
				continue
			}
			if f.pendingLocked(key) {
				continue
			}
			obj, _ := f.known.GetByKey(key)
			_, j := f.addLocked(key, Delta[T]{Type: Deleted, Object: obj, Inferred: true})
			f.markInitialLocked(j, first)
		}
	}
	return nil
}

// inferDeletionLocked queues an inferred deletion for the key of primary
// slot i, unless the current Replace listed it. Requires f.mu held.
func (f *DeltaFIFO[T]) inferDeletionLocked(i int32, first bool) {
	s := f.slots.at(i)
	if s.listed == f.gen {
		return
	}
	newest := s.deltas[len(s.deltas)-1]
	if s.state == slotInFlight && s.next != 0 {
		p := f.slots.at(s.next).deltas
		newest = p[len(p)-1]
	}
	j := f.appendLocked(i, Delta[T]{Type: Deleted, Object: newest.Object, Inferred: true})
	f.markInitialLocked(j, first)
}

// nextGenerationLocked starts a new Replace generation, for slot.listed.
// Requires f.mu held.
func (f *DeltaFIFO[T]) nextGenerationLocked() {
	f.gen++
	if f.gen == 0 { // wrapped: forget every old mark
		for i := int32(1); i < f.slots.len(); i++ {
			f.slots.at(i).listed = 0
		}
		f.gen = 1
	}
}

// resetIndexLocked replaces the index with an empty one made for n keys,
// turning idle slots into free ones. Requires f.mu held and no deltas in
// the FIFO.
func (f *DeltaFIFO[T]) resetIndexLocked(n int) {
	for i := int32(1); i < f.slots.len(); i++ {
		if s := f.slots.at(i); s.state == slotIdle {
			s.key, s.state = "", slotFree
		}
	}
	f.slots.idle = 0
	f.index.reset(n)
	f.indexHint = n
}

// markInitialLocked marks slot i as holding deltas of the first Replace.
// Requires f.mu held.
func (f *DeltaFIFO[T]) markInitialLocked(i int32, first bool) {
	if s := f.slots.at(i); first && !s.initial {
		s.initial = true
		f.initialLeft++
	}
}

// Resync records a Sync delta, carrying the cached object, for every key in
// KnownObjects that has no deltas in the FIFO. A key with pending deltas,
// or being processed, is skipped: its cached state is older than what is
// coming. Without KnownObjects, Resync does nothing.
func (f *DeltaFIFO[T]) Resync() error {
	if f.zero() {
		return errZero
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.known == nil {
		return nil
	}
	for key := range f.known.Keys() {
		if f.pendingLocked(key) {
			continue
		}
		obj, ok := f.known.GetByKey(key)
		if !ok {
			continue
		}
		f.addLocked(key, Delta[T]{Type: Sync, Object: obj})
	}
	return nil
}
