package indexer

import (
	"sync/atomic"
	"unsafe"
)

// The table's shared parts (position slots, directory and block pointers,
// and object pointers when T is a pointer type) are read by Lister.Get
// without the lock (see lockfree.go), so writers store to them atomically
// even though they hold the write lock. Writers read them plainly: only
// writers store to them, under the lock.

// loadPtr loads *p atomically.
func loadPtr[P any](p **P) *P {
	return (*P)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(p))))
}

// storePtr stores v in *p atomically.
func storePtr[P any](p **P, v *P) {
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(p)), unsafe.Pointer(v))
}

// loadItem loads *p atomically. E must be a pointer type (see
// column.atomicItems).
func loadItem[E any](p *E) E {
	v := atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(p)))
	return *(*E)(unsafe.Pointer(&v))
}

// storeItem stores v in *p atomically. E must be a pointer type.
func storeItem[E any](p *E, v E) {
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(p)), *(*unsafe.Pointer)(unsafe.Pointer(&v)))
}
