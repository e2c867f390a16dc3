package indexer

import (
	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

// KeyFunc returns keys.Of for the objects of x, except that the key of an
// object x stores under that key is the string x holds rather than a new
// one: keying the objects of a watch stream, most of which are already
// cached, then allocates only for objects new to x (and for keys longer than
// 128 bytes). x must key its objects with keys.Of.
//
// It is the key function for a DeltaFIFO whose KnownObjects is x:
//
//	fifo := deltafifo.New(indexer.KeyFunc(cache), deltafifo.Options[*Pod]{KnownObjects: cache})
//
// The function never waits for x: while a writer holds x, it builds the key
// as keys.Of does.
func KeyFunc[T keys.Object](x *Indexer[T]) keys.Func[T] {
	return func(obj T) (string, error) {
		name := obj.GetName()
		if name == "" {
			return "", keys.ErrEmptyName
		}
		return x.keyOf(obj.GetNamespace(), name), nil
	}
}

// keyOf returns keys.Join(namespace, name), name not empty: the string x
// holds under that key if it holds one, else a new one, built once. It
// does not wait for a writer that holds x.
func (x *Indexer[T]) keyOf(namespace, name string) string {
	var buf [objkey.MaxStack]byte
	key := objkey.Append(buf[:0], namespace, name)
	if x.zero() || !x.mu.TryRLock() {
		return string(key)
	}
	_, p, ok := x.t.findBytes(key, hashBytes(x.seed, key))
	var stored string
	if ok {
		stored = x.t.key(p)
	}
	x.mu.RUnlock()
	if !ok {
		return string(key)
	}
	return stored
}

// getNamespaced returns the object stored under keys.Join(namespace, name),
// or none if x is nil or zero.
func (x *Indexer[T]) getNamespaced(namespace, name string) (T, bool) {
	var zero T
	if name == "" || x == nil || x.zero() {
		return zero, false
	}
	var buf [objkey.MaxStack]byte
	key := objkey.Append(buf[:0], namespace, name)
	h := hashBytes(x.seed, key)
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, p, ok := x.t.findBytes(key, h)
	if !ok {
		return zero, false
	}
	return x.t.obj(p), true
}
