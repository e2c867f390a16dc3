package indexer

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/typedcache/typedcache/keys"
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
func NamespaceIndexFunc[T keys.Object](obj T) ([]string, error) {
	return namespaceValues(obj.GetNamespace()), nil
}

// namespaceSlots is the number of slots of namespaceCache, a power of two.
const namespaceSlots = 1024

// namespaceCache is a cache of one-element value slices. A namespace may
// live in either of two slots, both chosen by its hash under
// namespaceSeed, so that two namespaces that share one slot do not evict
// each other on every call: with a hundred namespaces in use, fewer than
// one call in ten thousand misses, where one slot per namespace would miss
// about one call in ten. A slot is replaced
// whole and its array never changed, so readers need no lock.
var (
	namespaceSeed  = maphash.MakeSeed()
	namespaceCache [namespaceSlots]atomic.Pointer[[1]string]
)

// namespaceValues returns a read-only slice holding only ns.
func namespaceValues(ns string) []string {
	h := maphash.String(namespaceSeed, ns)
	first := &namespaceCache[h&(namespaceSlots-1)]
	if v := first.Load(); v != nil && v[0] == ns {
		return v[:]
	}
	second := &namespaceCache[h>>32&(namespaceSlots-1)]
	if v := second.Load(); v != nil && v[0] == ns {
		return v[:]
	}
	v := &[1]string{ns}
	if first.Load() == nil {
		first.Store(v)
	} else {
		second.Store(v)
	}
	return v[:]
}
