package queue

import "hash/maphash"

// counts maps items to positive counts: the failures the per-item rate
// limiters track. It is an open-addressing hash table with linear probing
// and backward-shift deletion, kept at most half full. Compared with a Go
// map it hashes an item once per operation, where an increment takes a map
// two, and it does not reseed itself each time it becomes empty, as a map
// does on its last delete: limiters whose items fail and then succeed one
// at a time empty it on nearly every Forget. An emptied table releases
// large storage. The zero value is an empty table.
type counts[K comparable] struct {
	seed    maphash.Seed
	entries []countEntry[K] // len is zero or a power of two
	used    int
}

type countEntry[K comparable] struct {
	item K
	n    int // 0 marks an empty entry
}

// maxKeptCounts is the largest table an emptied counts keeps for reuse.
const maxKeptCounts = 1 << 10

// find returns the position of item's entry, or of the empty entry where it
// belongs, and whether item is there. The table must not be empty.
func (c *counts[K]) find(item K) (int, bool) {
	mask := len(c.entries) - 1
	i := int(maphash.Comparable(c.seed, item)) & mask
	for ; c.entries[i].n != 0; i = (i + 1) & mask {
		if c.entries[i].item == item {
			return i, true
		}
	}
	return i, false
}

// get returns the count of item, 0 if it has none.
func (c *counts[K]) get(item K) int {
	if c.used == 0 {
		return 0
	}
	i, _ := c.find(item)
	return c.entries[i].n
}

// inc adds one to the count of item and returns the count it had.
func (c *counts[K]) inc(item K) int {
	if 2*(c.used+1) > len(c.entries) {
		c.grow()
	}
	i, found := c.find(item)
	e := &c.entries[i]
	if !found {
		e.item = item
		c.used++
	}
	e.n++
	return e.n - 1
}

// remove drops the count of item.
func (c *counts[K]) remove(item K) {
	if c.used == 0 {
		return
	}
	hole, found := c.find(item)
	if !found {
		return
	}
	c.used--
	if c.used == 0 && len(c.entries) > maxKeptCounts {
		c.entries = nil
		return
	}
	mask := len(c.entries) - 1
	for j := (hole + 1) & mask; c.entries[j].n != 0; j = (j + 1) & mask {
		home := int(maphash.Comparable(c.seed, c.entries[j].item)) & mask
		// The entry at j may fill the hole if the hole lies on its probe
		// path, from home to j.
		if (j-home)&mask >= (j-hole)&mask {
			c.entries[hole] = c.entries[j]
			hole = j
		}
	}
	c.entries[hole] = countEntry[K]{}
}

func (c *counts[K]) grow() {
	if c.entries == nil {
		c.seed = maphash.MakeSeed() // a fresh seed for every new table
	}
	old := c.entries
	c.entries = make([]countEntry[K], max(16, 2*len(old)))
	for _, e := range old {
		if e.n != 0 {
			i, _ := c.find(e.item)
			c.entries[i] = e
		}
	}
}
