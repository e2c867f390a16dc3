package objkey_test

import (
	"strings"
	"testing"

	"github.com/typedcache/typedcache/internal/objkey"
	"github.com/typedcache/typedcache/keys"
)

type obj struct{ namespace, name string }

func (o *obj) GetNamespace() string       { return o.namespace }
func (o *obj) GetName() string            { return o.name }
func (o *obj) GetResourceVersion() string { return "" }

func TestAppend(t *testing.T) {
	for _, tt := range []struct{ name, namespace, objName string }{
		{"namespaced", "default", "web"},
		{"cluster-scoped", "", "node-1"},
		{"slash in name", "etc", "a/b"},
		{"percent in namespace", "100%", "x"},
		{"escape-looking name", "", "%2F"},
		{"mixed escapes", "%2F%", "/x%/%25/"},
		{"longer than the stack buffer", "ns", strings.Repeat("n", 2*objkey.MaxStack)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf [objkey.MaxStack]byte
			got := string(objkey.Append(buf[:0], tt.namespace, tt.objName))
			if want := keys.Join(tt.namespace, tt.objName); got != want {
				t.Errorf("Append(%q, %q) = %q, want %q", tt.namespace, tt.objName, got, want)
			}
		})
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("default", "web")
	f.Add("a/b%", "%2F/")
	f.Fuzz(func(t *testing.T, namespace, name string) {
		if name == "" {
			return
		}
		if got, want := string(objkey.Append(nil, namespace, name)), keys.Join(namespace, name); got != want {
			t.Errorf("Append(%q, %q) = %q, want %q", namespace, name, got, want)
		}
	})
}

func TestIsKeysOf(t *testing.T) {
	wrapped := func(o *obj) (string, error) { return keys.Of(o) }
	for _, tt := range []struct {
		name string
		f    keys.Func[*obj]
		want bool
	}{
		{"keys.Of", keys.Of[*obj], true},
		{"a function calling keys.Of", wrapped, false},
		{"nil", nil, false},
	} {
		if got := objkey.IsKeysOf(tt.f); got != tt.want {
			t.Errorf("IsKeysOf(%s) = %t, want %t", tt.name, got, tt.want)
		}
	}
}
