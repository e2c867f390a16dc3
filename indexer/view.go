package indexer

import (
	"runtime"
	"sync/atomic"
)

// view is a snapshot of the table published by the write that produced it,
// so that List, ListKeys, All and Keys never take the lock, and writers
// never wait for them.
//
// Readers and writers agree on who may touch a chunk through two flags, in
// the manner of Dekker's algorithm: a reader sets taken and then checks
// retired; a writer sets retired and then checks taken. Both are
// sequentially consistent atomics, so at least one of them sees the other's
// flag: either the writer learns that the view is in use and copies every
// chunk it changes (a new epoch), or the reader learns that a write is
// under way and waits for the view that write publishes.
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

// endLocked publishes the table as the write left it.
func (x *Indexer[T]) endLocked() {
	x.view.Store(&view[T]{snapshot: x.t.snapshot()})
}
