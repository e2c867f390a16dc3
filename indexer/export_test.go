package indexer

import (
	"fmt"
	"maps"
	"slices"
)

// CheckInvariants verifies the internal structure of x: positions and
// entries agree, the slots past the end are cleared, no chunk beyond the
// one spare is kept, every entry's values sum is that of its index values,
// every index holds exactly what its function computes
// for the stored objects, and no index bucket is empty.
func (x *Indexer[T]) CheckInvariants() error {
	x.gate.Lock() // hold off writers so the recomputation below sees what the lock saw
	defer x.gate.Unlock()
	x.mu.RLock()
	t := x.t
	indices := make([]map[string][]string, len(x.indices))
	for i, ix := range x.indices {
		indices[i] = make(map[string][]string, len(ix))
		for v, keys := range ix {
			if len(keys) == 0 {
				x.mu.RUnlock()
				return fmt.Errorf("index %d: empty bucket %q", i, v)
			}
			indices[i][v] = slices.Sorted(maps.Keys(keys))
		}
	}
	err := t.check()
	x.mu.RUnlock()
	if err != nil {
		return err
	}

	set := x.indexes.Load()
	if len(set.funcs) != len(indices) {
		return fmt.Errorf("%d index functions, %d indices", len(set.funcs), len(indices))
	}
	for k := range t.n {
		e := t.at(k)
		want := uint64(0)
		if len(set.funcs) > 0 {
			vals, err := set.values(nil, 0, e.key, e.obj)
			if err != nil {
				return err
			}
			want = valuesSum(x.seed, vals)
		}
		if e.sum != want {
			return fmt.Errorf("entry %q: values sum %#x, want %#x", e.key, e.sum, want)
		}
	}
	for i, f := range set.funcs {
		sets := map[string]map[string]bool{}
		for k := range t.n {
			e := t.at(k)
			vals, err := f(e.obj)
			if err != nil {
				return fmt.Errorf("index %q of stored %q: %v", set.names[i], e.key, err)
			}
			for _, v := range vals {
				if sets[v] == nil {
					sets[v] = map[string]bool{}
				}
				sets[v][e.key] = true
			}
		}
		want := make(map[string][]string, len(sets))
		for v, keys := range sets {
			want[v] = slices.Sorted(maps.Keys(keys))
		}
		if !maps.EqualFunc(want, indices[i], slices.Equal) {
			return fmt.Errorf("index %q = %v, want %v", set.names[i], indices[i], want)
		}
	}
	return nil
}

func (t *table[T]) check() error {
	if t.pos.n != t.n {
		return fmt.Errorf("%d positions for %d entries", t.pos.n, t.n)
	}
	used := 0
	for _, s := range t.pos.slots {
		if s != 0 {
			used++
		}
	}
	if used != t.n {
		return fmt.Errorf("%d used slots for %d entries", used, t.n)
	}
	if max := t.n>>chunkBits + 2; len(t.chunks) > max {
		return fmt.Errorf("%d chunks for %d entries", len(t.chunks), t.n)
	}
	for i := range len(t.chunks) * chunkLen {
		e := t.at(i)
		if i >= t.n {
			var zero entry[T]
			if e.key != "" || any(e.obj) != any(zero.obj) {
				return fmt.Errorf("slot %d past the end (%d) not cleared", i, t.n)
			}
			continue
		}
		if _, p, ok := t.find(e.key, hash(t.seed, e.key)); !ok || p != i {
			return fmt.Errorf("entry %d has key %q at position %d (%t)", i, e.key, p, ok)
		}
	}
	return nil
}
