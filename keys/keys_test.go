package keys_test

import (
	"errors"
	"testing"

	"github.com/typedcache/typedcache/keys"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name, namespace, objName string
		want                     string
		wantErr                  error
	}{
		{name: "namespaced", namespace: "default", objName: "web", want: "default/web"},
		{name: "cluster-scoped", objName: "node-1", want: "node-1"},
		{name: "slash in name is escaped", namespace: "etc", objName: "a/b", want: "etc/a%2Fb"},
		{name: "percent in namespace is escaped", namespace: "100%", objName: "x", want: "100%25/x"},
		{name: "escape-looking name stays distinct", objName: "%2F", want: "%252F"},
		{name: "empty name", namespace: "default", wantErr: keys.ErrEmptyName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keys.Of(&obj{Namespace: tt.namespace, Name: tt.objName})
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("Of(%q, %q) = %q, %v; want %q, %v", tt.namespace, tt.objName, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// Join of an empty name is the empty key, which Split rejects, whatever
// the namespace; every other join splits back.
func TestJoinEmptyName(t *testing.T) {
	for _, ns := range []string{"", "ns", "a/b", "%"} {
		key := keys.Join(ns, "")
		if key != "" {
			t.Errorf("Join(%q, \"\") = %q, want \"\"", ns, key)
		}
		if _, _, err := keys.Split(key); err == nil {
			t.Errorf("Split(Join(%q, \"\")) succeeded, want an error", ns)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		key             string
		namespace, name string
		wantErr         bool
	}{
		{key: "default/web", namespace: "default", name: "web"},
		{key: "node-1", name: "node-1"},
		{key: "etc/a%2Fb", namespace: "etc", name: "a/b"},
		{key: "100%25/x", namespace: "100%", name: "x"},
		{key: "%252F", name: "%2F"},
		{key: "", wantErr: true},       // no name
		{key: "ns/", wantErr: true},    // empty name
		{key: "/x", wantErr: true},     // empty namespace before a slash
		{key: "a/b/c", wantErr: true},  // second slash
		{key: "a%2/x", wantErr: true},  // truncated escape
		{key: "ns/%41", wantErr: true}, // escape Join never writes
		{key: "ns/%2f", wantErr: true}, // lower-case escape
		{key: "%", wantErr: true},      // lone percent
		{key: "ns%2Fx/y", namespace: "ns/x", name: "y"},
	}
	for _, tt := range tests {
		ns, name, err := keys.Split(tt.key)
		if (err != nil) != tt.wantErr || ns != tt.namespace || name != tt.name {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, error %t", tt.key, ns, name, err, tt.namespace, tt.name, tt.wantErr)
		}
	}
}

// FuzzKey checks that Join never maps two (namespace, name) pairs to
// one key, that Split inverts it, that an empty name gives the empty key,
// which Split rejects, and that a key Split accepts joins back to itself.
func FuzzKey(f *testing.F) {
	f.Add("default", "web", "default/web", "", "%2F")
	f.Add("a/b", "c", "a", "b/c", "a%2Fb/c")
	f.Add("", "x/y", "x", "y", "%25")
	f.Fuzz(func(t *testing.T, ns1, name1, ns2, name2, key string) {
		if name1 == "" {
			if k := keys.Join(ns1, name1); k != "" {
				t.Fatalf("Join(%q, \"\") = %q, want \"\"", ns1, k)
			}
		} else {
			k := keys.Join(ns1, name1)
			ns, name, err := keys.Split(k)
			if err != nil || ns != ns1 || name != name1 {
				t.Fatalf("Split(Join(%q, %q) = %q) = %q, %q, %v", ns1, name1, k, ns, name, err)
			}
			if name2 != "" && (ns1 != ns2 || name1 != name2) && k == keys.Join(ns2, name2) {
				t.Fatalf("Join(%q, %q) == Join(%q, %q) == %q", ns1, name1, ns2, name2, k)
			}
		}
		if ns, name, err := keys.Split(key); err == nil {
			if back := keys.Join(ns, name); back != key {
				t.Fatalf("Join(Split(%q)) = %q", key, back)
			}
		}
	})
}

// obj is a minimal Object.
type obj struct{ Namespace, Name string }

func (o *obj) GetNamespace() string       { return o.Namespace }
func (o *obj) GetName() string            { return o.Name }
func (o *obj) GetResourceVersion() string { return "" }
