package indexer

import (
	"runtime"
	"sync/atomic"
)

// view is the snapshot of the table published by the last write, so that
// List, ListKeys, All and Keys take a snapshot without the lock and
// writers never wait for them.
type view[T any] struct {
	snapshot[T]
}

// Snapshots share the table's blocks, and writers copy a block before
// changing it only while a snapshot is being read (copy-on-write). Two
// atomics of the Indexer tell writers when that is:
//
//   - readers counts the snapshots being read: a reader adds one when it
//     takes a snapshot and subtracts it when it is done. A write that
//     finds none changes every block in place, allocating nothing, however
//     many listings ran before it. A write that finds some opens a new
//     epoch, in which everything allocated before is copied before it is
//     changed. It cannot spare the blocks of an earlier write of the
//     current epoch: a reader counted before that write began may have
//     loaded the view it published.
//   - writing is set while a write changes the table.
//
// Readers and writers agree in the manner of Dekker's algorithm: a reader
// counts itself in readers and then checks writing; a writer sets writing
// and then reads readers. Both are sequentially consistent, so at least
// one sees the other: either the writer counts the reader (and copies what
// it changes, and publishes a new view rather than rewrite the one the
// reader loads), or the reader sees the write under way and waits for the
// view it publishes. A reader takes no lock and allocates nothing; it
// waits only while a write, which runs no user code, is under way.

// snapshot returns a view of the current entries that stays valid, and
// unchanged, until the caller calls release, which it must do once it no
// longer reads the view.
func (x *Indexer[T]) snapshot() snapshot[T] {
	for {
		x.readers.Add(1)
		if !x.writing.Load() {
			return x.view.Load().snapshot
		}
		x.readers.Add(-1)
		runtime.Gosched()
	}
}

// release ends a snapshot taken by snapshot.
func (x *Indexer[T]) release() {
	x.readers.Add(-1)
}

// beginLocked starts a write under the write lock: with no snapshot being
// read, every block may be changed in place; otherwise a new epoch begins.
// It reports whether snapshots are being read, for endLocked. Every
// beginLocked must be followed by endLocked.
func (x *Indexer[T]) beginLocked() (read bool) {
	x.writing.Store(true)
	if x.readers.Load() == 0 {
		x.t.own()
		return false
	}
	x.t.share()
	return true
}

// endLocked publishes the table as the write left it: in the published
// view itself if no snapshot was being read when the write began (no
// reader can have loaded it since), in a new one otherwise.
func (x *Indexer[T]) endLocked(read bool) {
	if read {
		x.view.Store(&view[T]{snapshot: x.t.snapshot()})
	} else {
		x.view.Load().snapshot = x.t.snapshot()
	}
	x.writing.Store(false)
}

// views holds the atomics of the snapshot protocol; see above.
type views[T any] struct {
	view    atomic.Pointer[view[T]]
	readers atomic.Int64
	writing atomic.Bool
}
