package memsource

import (
	"errors"
	"strconv"

	"github.com/typedcache/typedcache/keys"
)

// Object is what the source needs of a stored value: its key and version
// (keys.Object) and a way to stamp a new version on it. Every Kubernetes
// API type (for example *corev1.Pod) satisfies it through its embedded
// ObjectMeta.
//
// SetResourceVersion is called while other writers of the same source wait,
// so that versions are stamped in the order of the writes; it must only
// record the value, as ObjectMeta's does. It never runs under the lock that
// List, Get and watches take.
type Object interface {
	keys.Object
	SetResourceVersion(version string)
}

// errNilObject is the cause reported for an object whose methods panic,
// typically a nil pointer.
var errNilObject = errors.New("memsource: missing object (nil, or its methods panic)")

// inspect returns obj's key and resource version. A panic in the key
// function or in obj's methods (a nil pointer) becomes an error, so bad
// input never crashes the caller.
func inspect[T Object](keyFunc keys.Func[T], obj T) (key, version string, err error) {
	defer func() {
		if recover() != nil {
			key, version, err = "", "", errNilObject
		}
	}()
	if key, err = keyFunc(obj); err != nil {
		return "", "", err
	}
	return key, obj.GetResourceVersion(), nil
}

// codec turns the source's internal version numbers into resource version
// strings and back. Comparable versions are plain decimals, as in
// Kubernetes; opaque ones are base 36 behind a letter, so that a client
// that compares or parses them as numbers fails loudly in its tests.
type codec struct {
	opaque bool
}

// format returns the string form of version v.
func (c codec) format(v uint64) string {
	if c.opaque {
		return "v" + strconv.FormatUint(v, 36)
	}
	return strconv.FormatUint(v, 10)
}

// parse returns the version number a string made by format stands for.
func (c codec) parse(s string) (uint64, bool) {
	if c.opaque {
		if len(s) < 2 || s[0] != 'v' {
			return 0, false
		}
		v, err := strconv.ParseUint(s[1:], 36, 64)
		return v, err == nil && c.format(v) == s
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil && c.format(v) == s
}
