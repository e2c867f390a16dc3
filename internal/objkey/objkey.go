// Package objkey builds the keys that keys.Of gives objects into a byte
// buffer, so that a store can look an object's key up without making a
// string, and recognises keys.Of among key functions.
package objkey

import (
	"reflect"
	"runtime"

	"github.com/typedcache/typedcache/keys"
)

// MaxStack is the longest key that Append builds in a buffer of this size
// on the caller's stack; longer keys spill to the heap.
const MaxStack = 128

// keysOfName is the name the runtime gives every instantiation of keys.Of.
const keysOfName = "github.com/typedcache/typedcache/keys.Of[...]"

// IsKeysOf reports whether f is an instantiation of keys.Of, whose key
// Append reproduces. A function that calls keys.Of is not recognised.
func IsKeysOf[T any](f keys.Func[T]) bool {
	if f == nil {
		return false
	}
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	return fn != nil && fn.Name() == keysOfName
}

// Append appends keys.Join(namespace, name) to dst. The name must not be
// empty.
func Append(dst []byte, namespace, name string) []byte {
	if namespace != "" {
		dst = append(appendEscaped(dst, namespace), '/')
	}
	return appendEscaped(dst, name)
}

// appendEscaped appends s to dst with '%' and '/' percent-encoded, as
// keys.Join escapes each part. Parts are short and rarely hold either, so
// one pass over the bytes looks for both before anything is encoded.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c == '/' {
			return appendEncoded(append(dst, s[:i]...), s[i:])
		}
	}
	return append(dst, s...)
}

// appendEncoded appends s to dst with every '%' and '/' percent-encoded.
func appendEncoded(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			dst = append(dst, "%25"...)
		case '/':
			dst = append(dst, "%2F"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
