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
// changing it only while a snapshot that may read it is still being read
// (copy-on-write). Four atomics of the Indexer tell writers when that is:
//
//   - readers counts the snapshots being read: a reader adds one before it
//     takes a snapshot and subtracts it when it is done, so that a write
//     after the last listing ended changes every block in place, allocating
//     nothing, however many listings ran before it.
//   - taken counts the snapshots ever taken, each counted after its reader
//     loaded the view. A write that finds snapshots being read, some of
//     them taken since the current epoch began, opens a new epoch, in
//     which everything allocated before is copied before it is changed.
//   - writing is set while a write changes the table.
//   - published counts the writes that ended.
//
// Readers and writers agree in the manner of Dekker's algorithm: a reader
// counts itself in readers, checks writing, loads the view, counts itself
// in taken, and then checks that no write is under way and none ended
// since it began, or starts again; a writer sets writing and then reads
// taken and readers. All are sequentially consistent. A writer that finds
// no readers has none to fear: a reader counted later sees the write under
// way, or the view it publishes. A view a reader keeps was the current one
// while no write was under way, and every write that begins after the
// reader's check finds it counted in taken: the write either opens an
// epoch, or an earlier write since the reader's check opened one, and the
// reader's view holds nothing of the epoch a write changes in place. A
// reader takes no lock and allocates nothing; it starts again only while a
// write, which runs no user code, is under way or has just ended.

// snapshot returns a view of the current entries that stays valid, and
// unchanged, until the caller calls release, which it must do once it no
// longer reads the view.
func (x *Indexer[T]) snapshot() snapshot[T] {
	for {
		x.readers.Add(1)
		if s, ok := x.tryView(x.published.Load()); ok {
			return s
		}
		x.readers.Add(-1)
		runtime.Gosched()
	}
}

// tryView takes a snapshot for a reader counted in readers, which loaded
// published before it. It fails if a write was under way or ended
// meanwhile; the reader then starts again.
func (x *Indexer[T]) tryView(published uint64) (snapshot[T], bool) {
	if x.writing.Load() {
		return snapshot[T]{}, false
	}
	v := x.view.Load()
	if v == nil { // a zero Indexer: no entries
		return snapshot[T]{}, true
	}
	s := v.snapshot
	x.taken.Add(1)
	return s, !x.writing.Load() && x.published.Load() == published
}

// release ends a snapshot taken by snapshot.
func (x *Indexer[T]) release() {
	x.readers.Add(-1)
}

// beginLocked starts a write under the write lock: with no snapshot being
// read, every block may be changed in place; otherwise, if a snapshot was
// taken since the current epoch began, a new epoch begins. It reports
// whether snapshots are being read, for endLocked. Every beginLocked must
// be followed by endLocked.
func (x *Indexer[T]) beginLocked() (read bool) {
	x.writing.Store(true)
	switch taken := x.taken.Load(); {
	case x.readers.Load() == 0:
		x.t.own()
		return false
	case taken != x.takenInEpoch:
		x.t.share()
		x.takenInEpoch = taken
	}
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
	x.published.Add(1)
	x.writing.Store(false)
}

// views holds the atomics of the snapshot protocol; see above.
type views[T any] struct {
	view      atomic.Pointer[view[T]]
	readers   atomic.Int64
	taken     atomic.Uint64
	writing   atomic.Bool
	published atomic.Uint64
	// takenInEpoch is taken as the write that began the current epoch saw
	// it; guarded by the Indexer's write lock.
	takenInEpoch uint64
}
