package indexer_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

func TestStoredKey(t *testing.T) {
	long := strings.Repeat("n", 200)
	x := indexer.New(keys.Of[*obj], nil)
	odd := &obj{Namespace: "%2F%", Name: "/x%/%25/"}
	if err := x.Replace(append(listerObjects(), &obj{Namespace: "ns", Name: long}, odd)); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for key := range x.Keys() {
		stored[key] = key
	}
	tests := []struct {
		namespace, name string
		want            string // "" when nothing is stored
	}{
		{"ns", "a", "ns/a"},
		{"other", "a", "other/a"},
		{"", "node", "node"},
		{"a/b", "c/d", "a%2Fb/c%2Fd"},
		{"ns", long, "ns/" + long},
		{odd.Namespace, odd.Name, keys.Join(odd.Namespace, odd.Name)},
		{"%2F", "x", ""},
		{"ns", "missing", ""},
		{"", "a", ""},
		{"ns", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		got, ok := x.StoredKey(tt.namespace, tt.name)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("StoredKey(%q, %q) = %q, %t; want %q, %t", tt.namespace, tt.name, got, ok, tt.want, tt.want != "")
			continue
		}
		if ok && unsafe.StringData(got) != unsafe.StringData(stored[tt.want]) {
			t.Errorf("StoredKey(%q, %q) returned a copy of the key, not the stored string", tt.namespace, tt.name)
		}
	}
}

func TestStoredKeyDoesNotAllocate(t *testing.T) {
	x := indexer.New(keys.Of[*obj], nil)
	if err := x.Replace(listerObjects()); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*obj{{Namespace: "ns", Name: "a"}, {Name: "node"}, {Namespace: "ns", Name: "missing"}} {
		if n := testing.AllocsPerRun(100, func() { x.StoredKey(o.Namespace, o.Name) }); n != 0 {
			t.Errorf("StoredKey(%q, %q) allocates %v times, want 0", o.Namespace, o.Name, n)
		}
	}
}
