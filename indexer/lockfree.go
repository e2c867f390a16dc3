package indexer

import (
	"sync/atomic"

	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

// Lister.Get reads without the lock when T is a pointer type, so that
// reads never wait for writers, nor writers for reads: the lookup of a
// controller that reads its cache while events are applied to it.
//
// The reader probes the position slots and loads the object at each
// candidate position atomically (writers store them atomically: see
// atomic.go), and accepts an object only if its namespace and name are the
// ones asked for: keys.Of, the Lister's key function, gives distinct
// objects distinct keys, so the reader never compares the stored key,
// which it could not load atomically. An update of a stored object only
// replaces the object pointer at its position, so a read that overlaps it
// returns the old object or the new one. An add leaves every stored entry
// where it is (a grown slot array is filled before it is published), and
// Replace publishes a new table, leaving the old one as it was. Only a
// delete moves entries, in the slots and in the columns: it makes
// Indexer.moves odd while it runs, and a read that sees moves change
// retries, and after a few tries takes the read lock.

// lockFreeTries is how many lock-free attempts a read makes before it
// takes the read lock.
const lockFreeTries = 4

// getObject returns the object stored under keys.Join(namespace, name),
// reading without the lock if it can.
func getObject[T keys.Object](x *Indexer[T], namespace, name string) (T, bool) {
	if x == nil || !x.lockFree || name == "" {
		return x.getNamespaced(namespace, name)
	}
	var buf [objkey.MaxStack]byte
	h := hashBytes(x.seed, objkey.Append(buf[:0], namespace, name))
	for range lockFreeTries {
		before := x.moves.Load()
		if before&1 != 0 {
			continue
		}
		obj, ok := lookupObject(x.live.Load(), h, namespace, name)
		if x.moves.Load() == before {
			return obj, ok
		}
	}
	return x.getNamespaced(namespace, name)
}

// lookupObject probes t for the object with this namespace and name, whose
// key has the hash h, without the lock. Its answer is right only if no
// write moved entries meanwhile; whatever writers do, it returns an object
// t held, or none, and ends.
func lookupObject[T keys.Object](t *table[T], h uint32, namespace, name string) (T, bool) {
	var zero T
	slots := *t.pos.shared.Load()
	mask := len(slots) - 1
	for n, i := 0, int(h)&mask; n < len(slots); n, i = n+1, (i+1)&mask {
		s := atomic.LoadUint64(&slots[i])
		if s == 0 {
			return zero, false
		}
		if slotHash(s) != h {
			continue
		}
		obj, ok := t.objs.load(slotPos(s))
		if ok && any(obj) != any(zero) && obj.GetName() == name && obj.GetNamespace() == namespace {
			return obj, true
		}
	}
	return zero, false
}
