package indexer

import (
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"runtime"
	"sync/atomic"

	"github.com/typedcache/typedcache/keys"
)

// NamespaceIndex is the name of the index built by NamespaceIndexFunc, and
// a reserved one: Lister.Namespace lists through the index of that name
// when the Indexer has it, so that index must hold every object under its
// namespace alone. When T is a keys.Object, the Indexer checks it: a write
// (or AddIndexers) of an object whose values in that index are not exactly
// its namespace fails with an error wrapping ErrReservedIndex, and
// changes nothing. The check is skipped for the function NamespaceIndexFunc
// itself, when the Indexer recognises it (not when it is instantiated
// inside generic code, where the check then runs).
const NamespaceIndex = "namespace"

// ErrReservedIndex is wrapped by the error of a write of an object whose
// values in the NamespaceIndex index are not exactly its namespace.
var ErrReservedIndex = errors.New(`indexer: the index named "namespace" must index each object by its namespace alone, as indexer.NamespaceIndexFunc does, because Lister.Namespace lists through it: give other indexes another name`)

// namespaceIndexFuncName is the name the runtime gives every
// instantiation of NamespaceIndexFunc made outside generic code.
const namespaceIndexFuncName = "github.com/typedcache/typedcache/indexer.NamespaceIndexFunc[...]"

// needsNamespaceCheck reports whether the index called name, computed by
// f, must have its values checked against the namespaces of the objects:
// whether it is the NamespaceIndex of an Indexer of keys.Objects, with a
// function the Indexer does not recognise as NamespaceIndexFunc.
func needsNamespaceCheck[T any](name string, f IndexFunc[T]) bool {
	if name != NamespaceIndex || !reflect.TypeFor[T]().Implements(reflect.TypeFor[keys.Object]()) {
		return false
	}
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	return fn == nil || fn.Name() != namespaceIndexFuncName
}

// checkNamespace returns an error wrapping ErrReservedIndex unless values
// holds exactly the namespace of obj, a keys.Object.
func checkNamespace[T any](obj T, values []string) error {
	o, ok := any(obj).(keys.Object)
	if !ok || len(values) == 1 && values[0] == o.GetNamespace() {
		return nil
	}
	return fmt.Errorf("values %q, not [%q]: %w", values, o.GetNamespace(), ErrReservedIndex)
}

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
