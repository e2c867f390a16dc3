package indexer

// Snapshots share the table's blocks, and writers copy a block before
// changing it only while a snapshot that may read it is still being read
// (copy-on-write). Two atomics tell writers when that is:
//
//   - Indexer.readers counts the snapshots being read: a reader adds one
//     when it takes a snapshot and subtracts it when it is done, so that
//     a write after the last listing ended changes every block in place,
//     allocating nothing, however many listings ran before it.
//   - Indexer.sharedIn is one more than the last epoch in which a snapshot
//     was taken (0 if none was). A write that finds a snapshot of its own
//     epoch still being read opens a new epoch, in which everything
//     allocated before is copied before it is changed.
//
// Readers take a snapshot under the read lock, which they hold for
// constant time; writers read both atomics under the write lock, so a
// writer sees every snapshot taken before it and none is taken while it
// writes.

// snapshot returns a view of the current entries that stays valid, and
// unchanged, until the caller calls release, which it must do once it no
// longer reads the view. It holds the read lock for constant time and does
// not allocate.
func (x *Indexer[T]) snapshot() (s snapshot[T]) {
	x.mu.RLock()
	x.readers.Add(1)
	if shared := x.t.epoch + 1; x.sharedIn.Load() != shared {
		x.sharedIn.Store(shared)
	}
	s = x.t.snapshot()
	x.mu.RUnlock()
	return s
}

// release ends a snapshot taken by snapshot.
func (x *Indexer[T]) release() {
	x.readers.Add(-1)
}

// beginLocked starts a write under the write lock: with no snapshot being
// read, every block may be changed in place; otherwise, if a snapshot of
// the current epoch is being read, a new epoch begins.
func (x *Indexer[T]) beginLocked() {
	switch {
	case x.readers.Load() == 0:
		x.t.own()
	case x.sharedIn.Load() == x.t.epoch+1:
		x.t.share()
	}
}
