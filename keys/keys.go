package keys

import (
	"errors"
	"fmt"
	"strings"
)

// ErrEmptyName is returned by Of for an object without a name.
var ErrEmptyName = errors.New("keys: object has an empty name")

// Of returns "namespace/name" for a namespaced object and "name" for a
// cluster-scoped one (empty namespace), exactly client-go's
// MetaNamespaceKeyFunc for every valid Kubernetes name. It is the default
// Func of every package that stores Objects.
//
// Names from other sources (etcd keys, file paths) may contain '/'. So that
// two different (namespace, name) pairs never share a key, each part is
// escaped before joining: '%' becomes "%25" and '/' becomes "%2F". Kubernetes
// names contain neither character, so their keys are unchanged and cost no
// allocation beyond the join. Split reverses the mapping.
func Of[T Object](obj T) (string, error) {
	name := obj.GetName()
	if name == "" {
		return "", ErrEmptyName
	}
	return Join(obj.GetNamespace(), name), nil
}

// Join returns the key Of gives an object with this namespace and name.
// For every non-empty name, Split(Join(namespace, name)) returns namespace
// and name. An empty name, which no object has (Of fails on it), gives the
// empty key, whatever the namespace: the one key that Split rejects and
// that no store holds, so a lookup by it finds nothing. Callers that may
// pass an empty name detect it by that result.
func Join(namespace, name string) string {
	if name == "" {
		return ""
	}
	name = escape(name)
	if namespace == "" {
		return name
	}
	return escape(namespace) + "/" + name
}

// Split returns the namespace and name that a key made by Of or Join
// stands for. A key with no '/' is a cluster-scoped name. Keys that Join
// cannot produce (an empty part, a second '/', a '%' not followed by "25"
// or "2F") are errors, so a key that splits joins back to itself.
func Split(key string) (namespace, name string, err error) {
	ns, n, found := strings.Cut(key, "/")
	if !found {
		ns, n = "", key
	}
	if n == "" || strings.Contains(n, "/") || found && ns == "" {
		return "", "", fmt.Errorf("keys: malformed key %q", key)
	}
	if namespace, err = unescape(ns); err != nil {
		return "", "", fmt.Errorf("keys: malformed key %q: %w", key, err)
	}
	if name, err = unescape(n); err != nil {
		return "", "", fmt.Errorf("keys: malformed key %q: %w", key, err)
	}
	return namespace, name, nil
}

// escape replaces '%' and '/' with their percent encodings. It returns s
// itself when there is nothing to replace, which is always the case for
// Kubernetes names.
func escape(s string) string {
	if strings.IndexByte(s, '/') < 0 && strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := range len(s) {
		switch c := s[i]; c {
		case '%':
			b.WriteString("%25")
		case '/':
			b.WriteString("%2F")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescape reverses escape. Only the two encodings escape produces are
// accepted.
func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "%25"):
			b.WriteByte('%')
		case strings.HasPrefix(s[i:], "%2F"):
			b.WriteByte('/')
		default:
			return "", fmt.Errorf("bad escape at byte %d", i)
		}
		i += 2
	}
	return b.String(), nil
}
