package indexer

import "strings"

// StoredKey returns the key under which the object with this namespace and
// name is stored, the string keys.Join(namespace, name) builds, and reports
// whether there is one. The string returned is the one the Indexer holds, so
// a caller that needs the key of an object the Indexer already has, such as
// the key function of an informer's DeltaFIFO on every watch event, gets it
// without allocating a new one (unless the key is longer than 128 bytes).
//
// StoredKey never waits: while a writer holds the Indexer, it reports false
// at once, and the caller builds the key itself.
func (x *Indexer[T]) StoredKey(namespace, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	var buf [maxStackKey]byte
	key := appendKey(buf[:0], namespace, name)
	h := hashBytes(x.seed, key)
	if !x.mu.TryRLock() {
		return "", false
	}
	defer x.mu.RUnlock()
	p, ok := x.t.findBytes(key, h)
	if !ok {
		return "", false
	}
	return x.t.key(p), true
}

// maxStackKey is the longest key StoredKey and getNamespaced build without
// allocating.
const maxStackKey = 128

// getNamespaced returns the object stored under keys.Join(namespace, name).
func (x *Indexer[T]) getNamespaced(namespace, name string) (T, bool) {
	var zero T
	if name == "" {
		return zero, false
	}
	var buf [maxStackKey]byte
	key := appendKey(buf[:0], namespace, name)
	h := hashBytes(x.seed, key)
	x.mu.RLock()
	defer x.mu.RUnlock()
	p, ok := x.t.findBytes(key, h)
	if !ok {
		return zero, false
	}
	return x.t.obj(p), true
}

// appendKey appends keys.Join(namespace, name) to dst.
func appendKey(dst []byte, namespace, name string) []byte {
	if namespace != "" {
		dst = append(appendEscaped(dst, namespace), '/')
	}
	return appendEscaped(dst, name)
}

// appendEscaped appends escape(s) to dst.
func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '%')
		if j := strings.IndexByte(s, '/'); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		if s[i] == '%' {
			dst = append(dst, "%25"...)
		} else {
			dst = append(dst, "%2F"...)
		}
		s = s[i+1:]
	}
}
