package indexer

import (
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/typedcache/typedcache/keys"
)

// Indexer is a thread-safe store of objects of type T, keyed by a key function,
// with any number of named secondary indexes. See the package documentation
// for its semantics and concurrency guarantees.
//
// An Indexer is safe for simultaneous use by multiple goroutines. The zero
// value is not usable; call New.
//
// GetByKey does not allocate. An update allocates only what the key
// function and IndexFuncs allocate (NamespaceIndexFunc nothing, once it has
// seen the namespace), except a 32-byte bucket for a value new to its
// index, a set when a bucket gets its second object, the occasional growth
// of a set, and a 48-byte snapshot header when a listing ran since the
// previous write. List allocates only its result; All and Keys allocate
// nothing; listings never hold off writers. The bench module measures
// these costs against client-go's cache.Indexer (bench/RESULTS.md).
type Indexer[T any] struct {
	keyFunc keys.Func[T]
	seed    maphash.Seed // hashes keys for the position table

	// indexes is the current set of index functions. It changes only under
	// mu, together with indices.
	indexes atomic.Pointer[indexSet[T]]

	// view is the snapshot of t published by the last write. Readers of
	// whole snapshots load it without the lock; see view.
	view atomic.Pointer[view[T]]

	mu sync.RWMutex
	t  table[T] // guarded by mu
	// indices[i] holds index i of indexes; guarded by mu.
	indices []index
	// writesHeld is set, under mu, while AddIndexers indexes the stored
	// objects without the lock; writers wait on writesResumed meanwhile.
	// Readers are not held off.
	writesHeld    bool
	writesResumed sync.Cond // L is &mu
}

// New returns an empty Indexer that stores objects under the keys keyFunc
// computes and maintains the given indexes. It panics if keyFunc or any
// index function is nil.
func New[T any](keyFunc keys.Func[T], indexers Indexers[T]) *Indexer[T] {
	if keyFunc == nil {
		panic("indexer: New called with a nil KeyFunc")
	}
	if err := checkIndexers(indexers); err != nil {
		panic(err.Error())
	}
	seed := maphash.MakeSeed()
	x := &Indexer[T]{keyFunc: keyFunc, seed: seed, t: newTable[T](0, seed)}
	x.writesResumed.L = &x.mu
	set := new(indexSet[T]).with(indexers)
	x.indexes.Store(set)
	x.view.Store(&view[T]{})
	x.indices = make([]index, len(set.funcs))
	for i := range x.indices {
		x.indices[i] = newIndex()
	}
	return x
}

// waitWritesLocked waits, under the write lock, while writes are held
// off. The lock is released while it waits.
func (x *Indexer[T]) waitWritesLocked() {
	for x.writesHeld {
		x.writesResumed.Wait()
	}
}

// holdWrites holds off writers, once no one else does, until
// resumeWrites: they wait in waitWritesLocked. It lets AddIndexers run
// user code on the stored objects without the lock while they stay put.
func (x *Indexer[T]) holdWrites() {
	x.mu.Lock()
	x.waitWritesLocked()
	x.writesHeld = true
	x.mu.Unlock()
}

// resumeWrites ends holdWrites.
func (x *Indexer[T]) resumeWrites() {
	x.mu.Lock()
	x.writesHeld = false
	x.writesResumed.Broadcast()
	x.mu.Unlock()
}

// checkIndexers rejects nil index functions.
func checkIndexers[T any](indexers Indexers[T]) error {
	for name, f := range indexers {
		if f == nil {
			return fmt.Errorf("indexer: index %q has a nil IndexFunc", name)
		}
	}
	return nil
}

// key computes the key of obj, wrapping the key function's error.
func (x *Indexer[T]) key(obj T) (string, error) {
	key, err := x.keyFunc(obj)
	if err != nil {
		return "", fmt.Errorf("indexer: computing key: %w", err)
	}
	return key, nil
}
