package indexer_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// TestObjectKeys checks that writes keyed by keys.Of, which build keys on
// the stack, store, update and delete each object under exactly the key
// keys.Of gives it, escaped and long keys included, and fail as keys.Of
// does; and that only keys.Of itself is recognised.
func TestObjectKeys(t *testing.T) {
	wrapped := func(o *obj) (string, error) { return keys.Of(o) }
	for _, tt := range []struct {
		name    string
		keyFunc keys.Func[*obj]
		stack   bool
	}{
		{"keys.Of", keys.Of[*obj], true},
		{"a function calling keys.Of", wrapped, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := indexer.New(tt.keyFunc, testIndexers())
			if got := indexer.UsesObjectKeys(x); got != tt.stack {
				t.Errorf("UsesObjectKeys = %t, want %t", got, tt.stack)
			}
			objs := []*obj{
				{Namespace: "ns", Name: "a"},
				{Name: "node"},
				{Namespace: "a/b", Name: "c/d"},
				{Namespace: "%2F%", Name: "/x%/%25/"},
				{Namespace: "ns", Name: strings.Repeat("n", 200)},
			}
			var want []string
			for _, o := range objs {
				if err := x.Add(o); err != nil {
					t.Fatal(err)
				}
				k, _ := keys.Of(o)
				want = append(want, k)
			}
			slices.Sort(want)
			got := x.ListKeys()
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("ListKeys() = %q, want %q", got, want)
			}
			for i, o := range objs {
				newer := &obj{Namespace: o.Namespace, Name: o.Name, RV: "2"}
				if err := x.Update(newer); err != nil {
					t.Fatal(err)
				}
				if got, ok := x.GetByKey(want[slices.Index(want, keyOf(o))]); !ok || got != newer {
					t.Errorf("after Update of object %d, GetByKey = %v, %t; want the update", i, got, ok)
				}
			}
			if x.Len() != len(objs) {
				t.Errorf("Len() = %d after updates, want %d", x.Len(), len(objs))
			}
			for _, o := range objs {
				if err := x.Delete(&obj{Namespace: o.Namespace, Name: o.Name}); err != nil {
					t.Fatal(err)
				}
			}
			if x.Len() != 0 {
				t.Errorf("Len() = %d after deleting every object, want 0", x.Len())
			}
			for _, write := range []func(*obj) error{x.Add, x.Update, x.Delete} {
				if err := write(&obj{Namespace: "ns"}); !errors.Is(err, keys.ErrEmptyName) {
					t.Errorf("writing an object without a name: %v, want %v", err, keys.ErrEmptyName)
				}
			}
			if err := x.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

func keyOf(o *obj) string {
	k, _ := keys.Of(o)
	return k
}
