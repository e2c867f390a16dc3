package memsource

import (
	"cmp"
	"slices"
	"strings"

	"github.com/typedcache/typedcache/reflector"
)

// maxPaged is the number of older snapshots kept for continue tokens. Each
// has its own key and item slices, so the cap bounds the memory paginated
// lists can pin; a token whose snapshot was dropped is rebuilt from the
// history.
const maxPaged = 4

// snapshot is an immutable, key-sorted view of the source at one version.
// Lists and initial watch events read it without a lock.
type snapshot[T any] struct {
	version uint64
	keys    []string // sorted, unique
	items   []T      // items[i] is stored under keys[i]
}

// change is the state of one key to merge into a snapshot.
type change[T any] struct {
	key     string
	obj     T
	present bool   // false: the key is absent
	version uint64 // the write that made this state, to order changes of one key
}

// noteChangedLocked records the write at the current version of key (obj,
// or a deletion when !present) for the next rebuild of the snapshot. Once
// there are more changes than objects, a rebuild from scratch is cheaper:
// the list stops growing.
func (s *Source[T]) noteChangedLocked(key string, obj T, present bool) {
	if s.overflow {
		return
	}
	if len(s.changed) > len(s.items)+1024 {
		clear(s.changed)
		s.overflow, s.changed = true, s.changed[:0]
		return
	}
	s.changed = append(s.changed, change[T]{key: key, obj: obj, present: present, version: s.version})
}

// currentLocked returns the snapshot at the current version, building it
// if writes made the last one stale: by merging the changes into it
// (O(n + c log c) for c changes, and O(n + c) when the keys were written in
// order, as a bulk load often does), or from scratch (O(n log n)) when
// there were more changes than objects.
func (s *Source[T]) currentLocked() *snapshot[T] {
	if s.snap.version == s.version {
		return s.snap
	}
	if s.overflow {
		s.snap = s.buildLocked()
	} else {
		slices.SortFunc(s.changed, func(a, b change[T]) int {
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.version, b.version)
		})
		// Keep the last change of each key.
		last := s.changed[:0]
		for i, c := range s.changed {
			if i+1 < len(s.changed) && s.changed[i+1].key == c.key {
				continue
			}
			last = append(last, c)
		}
		s.snap = merge(s.snap, last, s.version)
	}
	if cap(s.changed) > 4096 {
		s.changed = nil // do not pin a bulk load's worth of memory
	} else {
		clear(s.changed)
		s.changed = s.changed[:0]
	}
	s.overflow = false
	return s.snap
}

// buildLocked returns a snapshot of the current items, sorted from scratch.
func (s *Source[T]) buildLocked() *snapshot[T] {
	type pair struct {
		key string
		obj T
	}
	pairs := make([]pair, 0, len(s.items))
	for k, e := range s.items {
		pairs = append(pairs, pair{k, e.obj})
	}
	slices.SortFunc(pairs, func(a, b pair) int { return strings.Compare(a.key, b.key) })
	snap := &snapshot[T]{
		version: s.version,
		keys:    make([]string, len(pairs)),
		items:   make([]T, len(pairs)),
	}
	for i, p := range pairs {
		snap.keys[i], snap.items[i] = p.key, p.obj
	}
	return snap
}

// merge returns a snapshot at version made of base with changes applied.
// changes are sorted by key, without repeats. Runs of base between two
// changes are copied whole.
func merge[T any](base *snapshot[T], changes []change[T], version uint64) *snapshot[T] {
	n := len(base.keys) + len(changes)
	out := &snapshot[T]{version: version, keys: make([]string, 0, n), items: make([]T, 0, n)}
	i := 0
	for _, c := range changes {
		j, found := slices.BinarySearch(base.keys[i:], c.key)
		out.keys = append(out.keys, base.keys[i:i+j]...)
		out.items = append(out.items, base.items[i:i+j]...)
		i += j
		if found {
			i++
		}
		if c.present {
			out.keys = append(out.keys, c.key)
			out.items = append(out.items, c.obj)
		}
	}
	out.keys = append(out.keys, base.keys[i:]...)
	out.items = append(out.items, base.items[i:]...)
	return out
}

// snapshotAtLocked returns the snapshot at version v, which must be within
// the history (oldest <= v <= version): the current one, a kept one, or
// one rebuilt by undoing the writes after v.
func (s *Source[T]) snapshotAtLocked(v uint64) *snapshot[T] {
	cur := s.currentLocked()
	if cur.version == v {
		return cur
	}
	for i, p := range s.paged {
		if p.version == v {
			copy(s.paged[1:i+1], s.paged[:i])
			s.paged[0] = p
			return p
		}
	}
	seen := make(map[string]struct{})
	var changes []change[T]
	for i := v - s.oldest; i < s.version-s.oldest; i++ {
		r := s.history.At(int(i))
		if _, ok := seen[r.key]; ok {
			continue
		}
		seen[r.key] = struct{}{}
		switch r.typ {
		case reflector.Added:
			changes = append(changes, change[T]{key: r.key})
		case reflector.Updated:
			changes = append(changes, change[T]{key: r.key, obj: r.prev, present: true})
		case reflector.Deleted:
			changes = append(changes, change[T]{key: r.key, obj: r.obj, present: true})
		}
	}
	slices.SortFunc(changes, func(a, b change[T]) int { return strings.Compare(a.key, b.key) })
	snap := merge(cur, changes, v)
	s.keepLocked(snap)
	return snap
}

// keepLocked remembers snap for the continue tokens that refer to it,
// forgetting the least recently used snapshot beyond maxPaged and those the
// history no longer covers.
func (s *Source[T]) keepLocked(snap *snapshot[T]) {
	s.paged = slices.DeleteFunc(s.paged, func(p *snapshot[T]) bool {
		return p == snap || p.version < s.oldest
	})
	if len(s.paged) == maxPaged {
		s.paged[maxPaged-1] = nil
		s.paged = s.paged[:maxPaged-1]
	}
	s.paged = slices.Insert(s.paged, 0, snap)
}
