package indexer

import (
	"runtime"
	"sync/atomic"
)

// view is a snapshot of the table published by the write that produced it,
// so that List, ListKeys, All and Keys never take the lock, and writers
// never wait for them.
//
// Readers and writers agree on who may touch a block through two flags, in
// the manner of Dekker's algorithm: a reader sets taken and then checks
// retired; a writer sets retired and then checks taken. Both are
// sequentially consistent atomics, so at least one of them sees the other's
// flag: either the writer learns that the view is in use and copies every
// block it changes (a new epoch), or the reader learns that a write is
// under way and waits for the view that write publishes. A view no reader
// took is reused by the next write, so writes with no reader around
// allocate nothing; a reader that finds it retired reads its fields only
// after the write has republished it.
type view[T any] struct {
	snapshot[T]
	taken   atomic.Bool // a reader may be walking the view
	retired atomic.Bool // a write is changing the table
}

// snapshot returns a view of the current entries that stays valid, and
// unchanged, without the lock. It takes no lock and does not allocate; it
// waits only while a write is under way, and that write runs no user code.
func (x *Indexer[T]) snapshot() snapshot[T] {
	for {
		v := x.view.Load()
		if !v.retired.Load() {
			if !v.taken.Load() {
				v.taken.Store(true)
			}
			if !v.retired.Load() {
				return v.snapshot
			}
		}
		runtime.Gosched()
	}
}

// beginLocked starts a write under the write lock: it retires the
// published view, opening a new copy-on-write epoch if a reader took it.
// Every beginLocked must be followed by endLocked.
func (x *Indexer[T]) beginLocked() {
	v := x.view.Load()
	v.retired.Store(true)
	x.t.begin(v.taken.Load())
}

// endLocked publishes the table as the write left it: in the retired view
// itself if no reader took it, in a new one otherwise.
func (x *Indexer[T]) endLocked() {
	v := x.view.Load()
	if v.taken.Load() {
		x.view.Store(&view[T]{snapshot: x.t.snapshot()})
		return
	}
	v.snapshot = x.t.snapshot()
	v.retired.Store(false)
}
