package indexer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CheckInvariants verifies the internal structure of x: positions and
// entries agree, the slots past the end are cleared, no block beyond the
// one spare is kept, every index holds exactly what its function computes
// for the stored objects, no index bucket is empty, and each entry's
// recorded buckets are exactly those that hold it.
func (x *Indexer[T]) CheckInvariants() error {
	x.holdWrites() // so that the recomputation below sees what the lock saw
	defer x.resumeWrites()
	x.mu.RLock()
	t := x.t
	indices := make([]map[string][]string, len(x.indexData))
	var err error
	for i := range x.indexData {
		if indices[i], err = checkIndex(&x.indexData[i], t); err != nil {
			err = fmt.Errorf("index %d: %v", i, err)
			break
		}
	}
	if err == nil {
		err = t.check()
	}
	x.mu.RUnlock()
	if err != nil {
		return err
	}

	set := x.indexFuncs.Load()
	if len(set.funcs) != len(indices) {
		return fmt.Errorf("%d index functions, %d indices", len(set.funcs), len(indices))
	}
	for i, f := range set.funcs {
		sets := map[string]map[string]bool{}
		for k := range t.n {
			key := t.key(k)
			vals, err := f(t.obj(k))
			if err != nil {
				return fmt.Errorf("index %q of stored %q: %v", set.names[i], key, err)
			}
			for _, v := range vals {
				if sets[v] == nil {
					sets[v] = map[string]bool{}
				}
				sets[v][key] = true
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

// checkIndex verifies the structure of ix against t and returns its contents:
// each value with the sorted keys of its entries.
func checkIndex[T any](ix *index, t *table[T]) (map[string][]string, error) {
	if len(ix.of) != t.n {
		return nil, fmt.Errorf("%d recorded entries, %d stored", len(ix.of), t.n)
	}
	// holds[p] are the buckets that hold entry p.
	holds := make([][]*bucket, t.n)
	out := make(map[string][]string, len(ix.buckets))
	for v, b := range ix.buckets {
		if b.value != v {
			return nil, fmt.Errorf("bucket %q has value %q", v, b.value)
		}
		if b.many != nil {
			if err := b.many.check(); err != nil {
				return nil, fmt.Errorf("bucket %q: %v", v, err)
			}
			if b.many.n < 2 {
				return nil, fmt.Errorf("bucket %q: a set of %d entries", v, b.many.n)
			}
		}
		var keys []string
		for p := range b.members {
			if int(p) < 0 || int(p) >= t.n {
				return nil, fmt.Errorf("bucket %q holds entry %d of %d", v, p, t.n)
			}
			holds[p] = append(holds[p], b)
			keys = append(keys, t.key(int(p)))
		}
		slices.Sort(keys)
		out[v] = keys
	}
	for p := range ix.multi {
		if int(p) < 0 || int(p) >= t.n {
			return nil, fmt.Errorf("buckets recorded for entry %d of %d", p, t.n)
		}
	}
	byValue := func(a, b *bucket) int { return strings.Compare(a.value, b.value) }
	for p, got := range holds {
		var rec []*bucket
		if b := ix.of[p]; b != nil {
			rec = []*bucket{b}
			if _, ok := ix.multi[int32(p)]; ok {
				return nil, fmt.Errorf("entry %d has one bucket and several", p)
			}
		} else if bs, ok := ix.multi[int32(p)]; ok {
			if len(bs) < 2 {
				return nil, fmt.Errorf("entry %d: %d buckets recorded as several", p, len(bs))
			}
			rec = slices.Clone(bs)
		}
		slices.SortFunc(rec, byValue)
		slices.SortFunc(got, byValue)
		if !slices.Equal(rec, got) {
			return nil, fmt.Errorf("entry %d: recorded buckets %v, held by %v", p, values(rec), values(got))
		}
	}
	return out, nil
}

// check verifies that s counts its positions right, is not too full or
// (unless minimal) too empty, and finds each of them by probing.
func (s *posSet) check() error {
	used := 0
	for _, v := range s.slots {
		if v != 0 {
			used++
		}
	}
	if used != s.n {
		return fmt.Errorf("%d used slots, %d counted", used, s.n)
	}
	if size := len(s.slots); size < minSetSlots || size&(size-1) != 0 || s.n*16 > size*13 || size > minSetSlots && s.n*8 < size {
		return fmt.Errorf("%d slots for %d positions", size, s.n)
	}
	mask := len(s.slots) - 1
	for _, v := range s.slots {
		if v == 0 {
			continue
		}
		i := s.home(int32(v - 1))
		for s.slots[i] != v {
			if s.slots[i] == 0 {
				return fmt.Errorf("position %d not found by probing", v-1)
			}
			i = (i + 1) & mask
		}
	}
	return nil
}

func values(bs []*bucket) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.value
	}
	return out
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
	if t.keys.nblocks != t.objs.nblocks {
		return fmt.Errorf("%d key blocks, %d object blocks", t.keys.nblocks, t.objs.nblocks)
	}
	if err := checkColumn("key", &t.keys); err != nil {
		return err
	}
	if err := checkColumn("object", &t.objs); err != nil {
		return err
	}
	if max := t.n>>blockBits + 2; t.objs.nblocks > max {
		return fmt.Errorf("%d blocks for %d entries", t.objs.nblocks, t.n)
	}
	for i := range t.objs.nblocks * blockLen {
		key := t.key(i)
		if i >= t.n {
			var zero T
			if key != "" || any(t.obj(i)) != any(zero) {
				return fmt.Errorf("slot %d past the end (%d) not cleared", i, t.n)
			}
			continue
		}
		if _, p, ok := t.find(key, hash(t.seed, key)); !ok || p != i {
			return fmt.Errorf("entry %d has key %q at position %d (%t)", i, key, p, ok)
		}
	}
	return nil
}

// checkColumn verifies that c has exactly the directories its blocks need
// and that its last directory holds blocks exactly up to the last block.
func checkColumn[E any](name string, c *column[E]) error {
	if want := (c.nblocks + dirMask) >> dirBits; len(c.dirs) != want {
		return fmt.Errorf("%d %s directories for %d blocks, want %d", len(c.dirs), name, c.nblocks, want)
	}
	if len(c.dirs) == 0 {
		return nil
	}
	last := len(c.dirs) - 1
	for j, b := range c.dirs[last].blocks {
		if has, want := b != nil, last*dirLen+j < c.nblocks; has != want {
			return fmt.Errorf("%s directory %d: block %d present %t, want %t", name, last, j, has, want)
		}
	}
	return nil
}

// UsesObjectKeys reports whether x builds the keys of its writes on the
// stack, as it does when its key function is keys.Of.
func UsesObjectKeys[T any](x *Indexer[T]) bool { return x.objectKeys }

// CountReader takes the first step of a snapshot, counting a reader, and
// stops there, as a reader preempted before it checks for a write under
// way. load takes the remaining steps, starting again as snapshot does if
// a write ran meanwhile, and returns the object at each position of the
// view it took; release ends the snapshot.
func (x *Indexer[T]) CountReader() (load func() func(p int) T, release func()) {
	x.readers.Add(1)
	published := x.published.Load()
	load = func() func(int) T {
		s, ok := x.tryView(published)
		if !ok {
			x.readers.Add(-1)
			s = x.snapshot()
		}
		return s.obj
	}
	return load, x.release
}
