package indexer

import "strings"

// StoredKey returns the key under which the object with this namespace and
// name is stored, the string JoinKey(namespace, name) builds, and reports
// whether there is one. The string returned is the one the Indexer holds, so
// a caller that needs the key of an object the Indexer already has, such as
// the key function of an informer's DeltaFIFO on every watch event, gets it
// without allocating a new one (unless the key needs escaping, or is longer
// than 128 bytes).
func (x *Indexer[T]) StoredKey(namespace, name string) (string, bool) {
	key, _, ok := x.lookupNamespaced(namespace, name)
	return key, ok
}

// maxStackKey is the longest key lookupNamespaced builds without allocating.
const maxStackKey = 128

// lookupNamespaced returns the entry stored under JoinKey(namespace, name),
// building the key on the stack when it needs no escaping.
func (x *Indexer[T]) lookupNamespaced(namespace, name string) (key string, obj T, ok bool) {
	if name == "" {
		return "", obj, false
	}
	if namespace == "" || len(namespace)+1+len(name) > maxStackKey ||
		strings.ContainsAny(namespace, "%/") || strings.ContainsAny(name, "%/") {
		key := JoinKey(namespace, name)
		h := hash(x.seed, key)
		x.mu.RLock()
		defer x.mu.RUnlock()
		if _, p, ok := x.t.find(key, h); ok {
			e := x.t.at(p)
			return e.key, e.obj, true
		}
		return "", obj, false
	}
	var buf [maxStackKey]byte
	b := append(append(append(buf[:0], namespace...), '/'), name...)
	h := hashBytes(x.seed, b)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if p, ok := x.t.findBytes(b, h); ok {
		e := x.t.at(p)
		return e.key, e.obj, true
	}
	return "", obj, false
}

// getNamespaced returns the object stored under JoinKey(namespace, name).
func (x *Indexer[T]) getNamespaced(namespace, name string) (T, bool) {
	_, obj, ok := x.lookupNamespaced(namespace, name)
	return obj, ok
}
