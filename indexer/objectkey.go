package indexer

import (
	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

// The key of a write is a string, or, when a byte slice kb is not nil, the
// string that kb holds: a write given kb looks the key up without making a
// string, and makes one only to store a new entry, so that updating a
// stored object allocates no key. (Two parameters rather than one struct,
// so that escape analysis keeps kb's array on the caller's stack.)

// keyString returns the key of a write as a string.
func keyString(key string, kb []byte) string {
	if kb != nil {
		return string(kb)
	}
	return key
}

// objectKey returns the key keys.Of computes for obj, appended to buf (on
// the stack if it fits), and its hash. It is how Add, Update and Delete key
// an object when the key function is keys.Of, whose results it reproduces
// exactly, errors included.
func (x *Indexer[T]) objectKey(obj T, buf []byte) (key string, kb []byte, h uint32, err error) {
	o, ok := any(obj).(keys.Object)
	if !ok {
		// Unreachable: keys.Of[T] compiles only for T that are keys.Objects.
		key, err = x.key(obj)
		return key, nil, hash(x.seed, key), err
	}
	name := o.GetName()
	if name == "" {
		return "", nil, 0, x.keyError(keys.ErrEmptyName)
	}
	kb = objkey.Append(buf, o.GetNamespace(), name)
	return "", kb, hashBytes(x.seed, kb), nil
}
