package memsource

import (
	"slices"
	"strings"

	"github.com/typedcache/typedcache/reflector"
)

// maxPaged is the number of older snapshots kept for continue tokens. Each
// shares no memory with the others, so the cap bounds what paginated lists
// can pin; a token whose snapshot was dropped is rebuilt from the history.
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
	present bool // false: the key is absent
}

// noteChangedLocked records that key was written after the current
// snapshot. Once the list of changes is longer than a rebuild from scratch
// costs, it stops growing.
func (s *Source[T]) noteChangedLocked(key string) {
	if s.snap == nil || s.overflow {
		return
	}
	if len(s.changed) > len(s.items)+1024 {
		s.overflow, s.changed = true, nil
		return
	}
	s.changed = append(s.changed, key)
}

// currentLocked returns the snapshot at the current version, building it
// if writes made the last one stale: by merging the changed keys into it
// (O(n + c log c) for c changes), or from scratch (O(n log n)).
func (s *Source[T]) currentLocked() *snapshot[T] {
	if s.snap != nil && s.snap.version == s.version {
		return s.snap
	}
	if s.snap == nil || s.overflow {
		s.snap = s.buildLocked()
	} else {
		slices.Sort(s.changed)
		keys := slices.Compact(s.changed)
		changes := make([]change[T], len(keys))
		for i, k := range keys {
			e, ok := s.items[k]
			changes[i] = change[T]{key: k, obj: e.obj, present: ok}
		}
		s.snap = merge(s.snap, changes, s.version)
	}
	s.changed, s.overflow = s.changed[:0], false
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
		case reflector.Modified:
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
