package indexer

import (
	"slices"
	"sync/atomic"
)

// blockBits sets the number of entries per block (128), and dirBits the
// number of blocks per directory (64). A write after a snapshot copies the
// block it changes, the directory that holds it and the array of
// directories, so their sizes bound the cost a snapshot imposes on
// writers: larger blocks and directories make copies dearer, smaller ones
// make the array of directories longer.
const (
	blockBits = 7
	blockLen  = 1 << blockBits
	blockMask = blockLen - 1

	dirBits  = 6
	dirLen   = 1 << dirBits
	dirMask  = dirLen - 1
	dirShift = blockBits + dirBits // from an item's position to its directory's
)

// block is a fixed-size run of one column of the dense entry array.
type block[E any] struct {
	items [blockLen]E
	// epoch is the table epoch in which this block was allocated. A block
	// from an epoch before the writer's floor may be referenced by a
	// snapshot and must be copied before it is changed.
	epoch uint64
}

// stamp tells a write which parts of a column it may change in place,
// those allocated in epoch floor or later, and the epoch, now, of what it
// allocates. now >= floor, and no part of a column is from an epoch after
// now.
type stamp struct{ now, floor uint64 }

// owns reports whether a part allocated in epoch may be changed in place.
func (s stamp) owns(epoch uint64) bool { return epoch >= s.floor }

// dir is a directory of blocks: the blocks of 8192 consecutive items. The
// entries past the column's last block are nil.
type dir[E any] struct {
	blocks [dirLen]*block[E]
	epoch  uint64 // as block.epoch
}

// column is one field of every entry of the dense entry array (the keys,
// or the objects): item i lives in
// dirs[i>>dirShift].blocks[(i>>blockBits)&dirMask].items[i&blockMask].
// Keeping the fields apart lets an update, which changes only the object,
// copy a block of pointers rather than one of whole entries. The two
// levels keep what a write copies after a snapshot small however large the
// column grows: a block (1 KB of pointers), a directory (512 bytes) and the
// array of directories (8 bytes per 8192 items).
//
// Snapshots share directories, blocks and the array of directories with
// the column. The column never changes any of them while a snapshot may
// read it: each carries the epoch in which it was allocated, and the
// column copies it before a write whose stamp does not own that epoch
// (copy-on-write).
//
// Lister.Get reads the object column without the lock (see lockfree.go):
// it loads the array of directories from shared, and directory, block and
// (with atomicItems) item pointers atomically, so writers store them
// atomically too.
type column[E any] struct {
	dirs    []*dir[E]
	shared  atomic.Pointer[[]*dir[E]] // dirs, as lock-free readers see it
	nblocks int
	// epoch is the epoch in which the dirs backing array was allocated.
	epoch uint64
	// atomicItems makes set store items atomically. E must then be a
	// pointer type.
	atomicItems bool
}

// blockAt returns the items of the block that holds item i.
func blockAt[E any](dirs []*dir[E], i int) *[blockLen]E {
	return &dirs[i>>dirShift].blocks[(i>>blockBits)&dirMask].items
}

// at returns item i.
func (c *column[E]) at(i int) E {
	return blockAt(c.dirs, i)[i&blockMask]
}

// set stores v as item i, copying what a snapshot may share, and returns
// the item it replaced.
func (c *column[E]) set(i int, v E, st stamp) (old E) {
	b := c.dirs[i>>dirShift].blocks[(i>>blockBits)&dirMask]
	if !st.owns(b.epoch) {
		b = c.copyBlock(i>>blockBits, st)
	}
	p := &b.items[i&blockMask]
	old = *p
	if c.atomicItems {
		storeItem(p, v)
	} else {
		*p = v
	}
	return old
}

// load returns item i, loading it without the lock: it is for lock-free
// readers of a column with atomicItems. ok is false if the column has no
// block for item i, which may be stale.
func (c *column[E]) load(i int) (item E, ok bool) {
	dirs := c.shared.Load()
	if dirs == nil || i < 0 || i>>dirShift >= len(*dirs) {
		return item, false
	}
	d := loadPtr(&(*dirs)[i>>dirShift])
	if d == nil {
		return item, false
	}
	b := loadPtr(&d.blocks[(i>>blockBits)&dirMask])
	if b == nil {
		return item, false
	}
	return loadItem(&b.items[i&blockMask]), true
}

// publish makes the current array of directories the one lock-free
// readers load.
func (c *column[E]) publish() {
	dirs := c.dirs
	c.shared.Store(&dirs)
}

// copyBlock replaces block bi with a copy and returns the copy.
func (c *column[E]) copyBlock(bi int, st stamp) *block[E] {
	d := c.writableDir(bi>>dirBits, st)
	cp := *d.blocks[bi&dirMask]
	cp.epoch = st.now
	storePtr(&d.blocks[bi&dirMask], &cp)
	return &cp
}

// writableDir returns directory di ready to be changed, copying it first
// if a snapshot may share it.
func (c *column[E]) writableDir(di int, st stamp) *dir[E] {
	d := c.dirs[di]
	if !st.owns(d.epoch) {
		c.own(st)
		cp := *d
		cp.epoch = st.now
		d = &cp
		storePtr(&c.dirs[di], d)
	}
	return d
}

// own makes the dirs backing array private to the column.
func (c *column[E]) own(st stamp) {
	if !st.owns(c.epoch) {
		c.dirs = slices.Clone(c.dirs)
		c.epoch = st.now
		c.publish()
	}
}

// grow adds an empty block at the end.
func (c *column[E]) grow(st stamp) {
	if c.nblocks&dirMask == 0 {
		// Snapshots read only directories below their length, and the
		// column never shrinks a shared backing array in place, so
		// appending a pointer does not touch anything a snapshot reads.
		grown := cap(c.dirs) == len(c.dirs)
		c.dirs = append(c.dirs, &dir[E]{epoch: st.now})
		if grown {
			c.epoch = st.now
		}
		c.publish()
	}
	d := c.writableDir(c.nblocks>>dirBits, st)
	storePtr(&d.blocks[c.nblocks&dirMask], &block[E]{epoch: st.now})
	c.nblocks++
}

// truncate drops the blocks past the first keep.
func (c *column[E]) truncate(keep int, st stamp) {
	ndirs := (keep + dirMask) >> dirBits
	c.own(st)
	for i := range c.dirs[ndirs:] {
		storePtr(&c.dirs[ndirs+i], nil)
	}
	c.dirs = c.dirs[:ndirs]
	c.publish()
	if keep&dirMask != 0 {
		d := c.writableDir(ndirs-1, st)
		for j := keep & dirMask; j < dirLen; j++ {
			storePtr(&d.blocks[j], nil)
		}
	}
	c.nblocks = keep
}

// adopt makes everything the column holds belong to epoch: for a column no
// snapshot has seen.
func (c *column[E]) adopt(epoch uint64) {
	c.epoch = epoch
	for _, d := range c.dirs {
		d.epoch = epoch
		for _, b := range d.blocks {
			if b != nil {
				b.epoch = epoch
			}
		}
	}
}

// copyTo copies the first len(dst) items of dirs to dst. It copies item by
// item: while the collector marks, a bulk copy of pointers costs more than
// the write barriers of single stores.
func copyTo[E any](dst []E, dirs []*dir[E]) {
	for start := 0; start < len(dst); start += blockLen {
		items := blockAt(dirs, start)
		out := dst[start:min(start+blockLen, len(dst))]
		for j := range out {
			out[j] = items[j]
		}
	}
}
