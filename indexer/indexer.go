package indexer

import (
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

// Indexer is a thread-safe store of objects of type T, keyed by a key function,
// with any number of named secondary indexes. See the package documentation
// for its semantics and concurrency guarantees.
//
// An Indexer is safe for simultaneous use by multiple goroutines. The zero
// value must not be used; call New. A zero Indexer reads as empty and has
// no indexes: its methods that return an error return one that names New,
// and the others (GetByKey, Len, List, ListKeys, All, Keys) find nothing.
//
// GetByKey does not allocate. An update allocates only what the key
// function and IndexFuncs allocate (NamespaceIndexFunc nothing, once it has
// seen the namespace; with keys.Of as the key function, Update and Delete
// of a stored object build its key without allocating), except a 32-byte
// bucket for a value new to its index, a set when a bucket gets its second
// object, the occasional growth of a set, and the blocks it copies while a
// listing is under way. List allocates only its result; All and Keys
// allocate nothing; listings never hold off writers. The bench module
// measures these costs against client-go's cache.Indexer
// (bench/RESULTS.md).
type Indexer[T any] struct {
	keyFunc keys.Func[T]
	// objectKeys is set if keyFunc is keys.Of: writes then build keys on
	// the stack (see writeKey).
	objectKeys bool
	seed       maphash.Seed // hashes keys for the position table

	// indexFuncs is the current set of index functions, read without the
	// lock. It changes only under mu, together with indexData.
	indexFuncs atomic.Pointer[indexSet[T]]

	// views publishes snapshots of t and counts their readers; see
	// view.go.
	views[T]

	mu sync.RWMutex
	t  *table[T] // guarded by mu
	// live is t, for Lister.Get's lock-free reads (see lockfree.go), and
	// moves is odd while a delete moves entries: a lock-free read that saw
	// it change retries.
	live  atomic.Pointer[table[T]]
	moves atomic.Uint64
	// lockFree is set if T is a pointer type, whose values can be loaded
	// atomically: then Lister.Get reads without the lock.
	lockFree bool
	// indexData[i] holds the buckets of index i of indexFuncs; guarded by
	// mu.
	indexData []index
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
	lockFree := reflect.TypeFor[T]().Kind() == reflect.Pointer
	x := &Indexer[T]{keyFunc: keyFunc, objectKeys: objkey.IsKeysOf(keyFunc), seed: seed, lockFree: lockFree}
	x.t = newTable[T](0, seed, lockFree)
	x.live.Store(x.t)
	x.view.Store(&view[T]{})
	x.writesResumed.L = &x.mu
	set := new(indexSet[T]).with(indexers)
	x.indexFuncs.Store(set)
	x.indexData = make([]index, len(set.funcs))
	for i := range x.indexData {
		x.indexData[i] = newIndex()
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
	if x.zero() {
		return "", errZero
	}
	key, err := x.keyFunc(obj)
	if err != nil {
		return "", x.keyError(err)
	}
	return key, nil
}

// isNilPointer reports whether obj, of a pointer type T, is nil. Converting
// a pointer to an interface does not allocate, and two interfaces holding
// pointers compare by type and address.
func isNilPointer[T any](obj T) bool {
	var zero T
	return any(obj) == any(zero)
}

// keyError wraps an error of the key function.
func (x *Indexer[T]) keyError(err error) error {
	return fmt.Errorf("indexer: computing key: %w", err)
}

// errNilObject is returned by the writes given a nil pointer.
var errNilObject = errors.New("indexer: the object is a nil pointer")

// writeKey computes the key of obj for a write: on the stack, in buf, when
// the key function is keys.Of; otherwise with the key function. A nil
// pointer is an error, before any key function sees it.
func (x *Indexer[T]) writeKey(obj T, buf []byte) (key string, kb []byte, h uint32, err error) {
	if x.lockFree && isNilPointer(obj) {
		return "", nil, 0, errNilObject
	}
	if x.objectKeys {
		return x.objectKey(obj, buf)
	}
	if key, err = x.key(obj); err != nil {
		return "", nil, 0, err
	}
	return key, nil, hash(x.seed, key), nil
}
