package indexer

import "slices"

// blockBits sets the number of entries per block (128). A write after a
// snapshot copies the block it changes in each column it changes, so the
// block size bounds the cost a snapshot imposes on writers; larger blocks
// make copies dearer, smaller ones make the block pointer slices longer.
const (
	blockBits = 7
	blockLen  = 1 << blockBits
	blockMask = blockLen - 1
)

// block is a fixed-size run of one column of the dense entry array.
type block[E any] struct {
	items [blockLen]E
	// epoch is the table epoch in which this block was allocated. A block
	// from an earlier epoch may be referenced by a snapshot and must be
	// copied before it is changed.
	epoch uint64
}

// column is one field of every entry of the dense entry array (the keys,
// or the objects): item i lives in blocks[i>>blockBits].items[i&blockMask].
// Keeping the fields apart lets an update, which changes only the object,
// copy a block of pointers rather than one of whole entries, and lets a
// listing copy objects a block at a time.
//
// Snapshots share blocks, and the blocks backing array, with the column.
// The column never changes either while a snapshot may read it: both carry
// the epoch in which they were allocated, and the column copies them
// before a write in a later epoch (copy-on-write).
type column[E any] struct {
	blocks []*block[E]
	// epoch is the epoch in which the blocks backing array was allocated.
	epoch uint64
}

// at returns item i.
func (c *column[E]) at(i int) E {
	return c.blocks[i>>blockBits].items[i&blockMask]
}

// set stores v as item i in epoch, copying what a snapshot may share, and
// returns the item it replaced.
func (c *column[E]) set(i int, v E, epoch uint64) (old E) {
	b := c.blocks[i>>blockBits]
	if b.epoch != epoch {
		b = c.copyBlock(i>>blockBits, epoch)
	}
	p := &b.items[i&blockMask]
	old, *p = *p, v
	return old
}

// copyBlock replaces block bi with a copy allocated in epoch and returns
// the copy.
func (c *column[E]) copyBlock(bi int, epoch uint64) *block[E] {
	c.own(epoch)
	cp := *c.blocks[bi]
	cp.epoch = epoch
	c.blocks[bi] = &cp
	return &cp
}

// own makes the blocks backing array private to the column in epoch.
func (c *column[E]) own(epoch uint64) {
	if c.epoch != epoch {
		c.blocks = slices.Clone(c.blocks)
		c.epoch = epoch
	}
}

// grow adds an empty block at the end.
func (c *column[E]) grow(epoch uint64) {
	// Snapshots read only blocks below their length, and the column never
	// shrinks a shared backing array in place, so appending a pointer does
	// not touch anything a snapshot reads.
	grown := cap(c.blocks) == len(c.blocks)
	c.blocks = append(c.blocks, &block[E]{epoch: epoch})
	if grown {
		c.epoch = epoch
	}
}

// truncate drops the blocks past the first keep.
func (c *column[E]) truncate(keep int, epoch uint64) {
	c.own(epoch)
	clear(c.blocks[keep:])
	c.blocks = c.blocks[:keep]
}

// adopt makes every block, and the backing array, belong to epoch: for a
// column no snapshot has seen.
func (c *column[E]) adopt(epoch uint64) {
	c.epoch = epoch
	for _, b := range c.blocks {
		b.epoch = epoch
	}
}

// copyTo copies the first len(dst) items of blocks to dst. It copies item
// by item: while the collector marks, a bulk copy of pointers costs more
// than the write barriers of single stores.
func copyTo[E any](dst []E, blocks []*block[E]) {
	for start := 0; start < len(dst); start += blockLen {
		items := &blocks[start>>blockBits].items
		out := dst[start:min(start+blockLen, len(dst))]
		for j := range out {
			out[j] = items[j]
		}
	}
}
