package indexer

import "sync/atomic"

// view is a published snapshot of the table, so that List, ListKeys, All
// and Keys need no lock while no write is under way.
//
// A write retires the published view; the first snapshot after the write
// publishes a new one under the read lock. Readers and writers agree on
// who may touch a chunk through two flags, in the manner of Dekker's
// algorithm: a reader sets taken and then checks retired; a writer sets
// retired and then checks taken. Both are sequentially consistent atomics,
// so at least one of them sees the other's flag: either the writer learns
// that the view is in use and copies every chunk it changes (a new epoch),
// or the reader learns that the view is stale and takes the read lock.
type view[T any] struct {
	snapshot[T]
	taken   atomic.Bool // a reader may be walking the view
	retired atomic.Bool // a write has changed the table since
}

// snapshot returns a view of the current entries that stays valid, and
// unchanged, without the lock. It takes no lock and does not allocate
// unless the table changed since the last snapshot.
func (x *Indexer[T]) snapshot() snapshot[T] {
	v := x.view.Load()
	if !v.retired.Load() {
		if !v.taken.Load() {
			v.taken.Store(true)
		}
		if !v.retired.Load() {
			return v.snapshot
		}
	}
	// Under the read lock no writer runs, so the published view cannot be
	// retired while we take it, and a new one shows the current table.
	x.mu.RLock()
	defer x.mu.RUnlock()
	v = x.view.Load()
	if v.retired.Load() {
		fresh := &view[T]{snapshot: x.t.snapshot()}
		fresh.taken.Store(true)
		if x.view.CompareAndSwap(v, fresh) {
			return fresh.snapshot
		}
		v = x.view.Load() // another reader published the same table
	}
	v.taken.Store(true)
	return v.snapshot
}

// beginLocked starts a write under the write lock: it retires the
// published view and opens a new copy-on-write epoch if a reader took it
// before it was retired.
func (x *Indexer[T]) beginLocked() {
	v := x.view.Load()
	wasRetired := v.retired.Swap(true)
	x.t.begin(!wasRetired && v.taken.Load())
}
