package measure

import "runtime"

// LiveHeap returns the bytes of live heap objects after a full collection.
// The difference of two calls, with a structure kept alive in between,
// is the heap that structure retains.
func LiveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Retained returns the heap, in bytes per item, that build's result keeps
// alive after a full collection, measured against the heap before build
// ran. The result of build is kept alive until the measure is taken.
func Retained[R any](items int, build func() R) float64 {
	before := LiveHeap()
	r := build()
	after := LiveHeap()
	runtime.KeepAlive(r)
	if after < before || items == 0 {
		return 0
	}
	return float64(after-before) / float64(items)
}
