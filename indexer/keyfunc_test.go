package indexer_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// TestKeyFunc checks that KeyFunc returns the stored string for a stored
// object and keys.Of's answer for any other.
func TestKeyFunc(t *testing.T) {
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
	keyFunc := indexer.KeyFunc(x)
	for _, tt := range tests {
		o := &obj{Namespace: tt.namespace, Name: tt.name}
		got, err := keyFunc(o)
		want, wantErr := keys.Of(o)
		if got != want || !errors.Is(err, wantErr) {
			t.Errorf("KeyFunc(x)(%q, %q) = %q, %v; want %q, %v", tt.namespace, tt.name, got, err, want, wantErr)
			continue
		}
		if tt.want != "" && unsafe.StringData(got) != unsafe.StringData(stored[tt.want]) {
			t.Errorf("KeyFunc(x)(%q, %q) returned a new string, not the stored one", tt.namespace, tt.name)
		}
	}
}

func TestKeyFuncDoesNotAllocateForStoredObjects(t *testing.T) {
	x := indexer.New(keys.Of[*obj], nil)
	if err := x.Replace(listerObjects()); err != nil {
		t.Fatal(err)
	}
	keyFunc := indexer.KeyFunc(x)
	for _, o := range []*obj{{Namespace: "ns", Name: "a"}, {Name: "node"}} {
		if n := testing.AllocsPerRun(100, func() { _, _ = keyFunc(o) }); n != 0 {
			t.Errorf("KeyFunc(x)(%q, %q) allocates %v times, want 0", o.Namespace, o.Name, n)
		}
	}
	// The key of an object new to x, as of a fresh informer's first
	// list, is built once: one allocation, for the string.
	o := &obj{Namespace: "ns", Name: "new"}
	if n := testing.AllocsPerRun(100, func() { _, _ = keyFunc(o) }); n != 1 {
		t.Errorf("KeyFunc(x)(%q, %q) allocates %v times, want 1", o.Namespace, o.Name, n)
	}
}

// KeyFunc of a zero Indexer, which holds nothing, is keys.Of.
func TestKeyFuncOfZeroIndexer(t *testing.T) {
	var x indexer.Indexer[*obj]
	keyFunc := indexer.KeyFunc(&x)
	for _, o := range []*obj{{Namespace: "ns", Name: "a"}, {Name: "node"}, {Namespace: "a/b", Name: "%"}, {Namespace: "ns"}} {
		got, err := keyFunc(o)
		want, wantErr := keys.Of(o)
		if got != want || !errors.Is(err, wantErr) {
			t.Errorf("KeyFunc(zero)(%q, %q) = %q, %v; want %q, %v", o.Namespace, o.Name, got, err, want, wantErr)
		}
	}
}
