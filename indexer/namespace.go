package indexer

import (
	"hash/maphash"
	"sync/atomic"
)

// NamespaceIndex is the conventional name of the index built by
// NamespaceIndexFunc. Lister.Namespace uses it when it is present.
const NamespaceIndex = "namespace"

// NamespaceIndexFunc indexes an object by its namespace.
//
// The returned slice is shared with other calls and must be treated as
// read-only (the Indexer never modifies an IndexFunc's result). Its
// namespace usually comes from a small process-wide cache, so that
// indexing an object does not allocate: a call allocates only when its
// namespace is not cached, and then replaces whatever namespace shared its
// cache slot. The cache holds at most 1024 namespaces, however many come
// and go.
func NamespaceIndexFunc[T Object](obj T) ([]string, error) {
	return namespaceValues(obj.GetNamespace()), nil
}

// namespaceSlots is the number of slots of namespaceCache, a power of two.
const namespaceSlots = 1024

// namespaceCache is a direct-mapped cache of one-element value slices, one
// per slot, the slot chosen by a hash of the namespace under namespaceSeed.
// A slot is replaced whole and its array never changed, so readers need no
// lock; a slot holding another namespace is a miss.
var (
	namespaceSeed  = maphash.MakeSeed()
	namespaceCache [namespaceSlots]atomic.Pointer[[1]string]
)

// namespaceValues returns a read-only slice holding only ns.
func namespaceValues(ns string) []string {
	slot := &namespaceCache[maphash.String(namespaceSeed, ns)&(namespaceSlots-1)]
	if v := slot.Load(); v != nil && v[0] == ns {
		return v[:]
	}
	v := &[1]string{ns}
	slot.Store(v)
	return v[:]
}
