package indexer_test

import (
	"errors"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// namespaceIndexers returns the namespace index, instantiated in generic
// code.
func namespaceIndexers[T keys.Object]() indexer.Indexers[T] {
	return indexer.Indexers[T]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[T]}
}

// The index named "namespace" must index each object by its namespace
// alone: a write or AddIndexers that would store other values fails with
// ErrReservedIndex and changes nothing, so that no index of the user's
// changes what Lister.Namespace returns.
func TestReservedNamespaceIndex(t *testing.T) {
	byTag := func(o *obj) ([]string, error) { return o.Tags, nil }
	wrapped := func(o *obj) ([]string, error) { return indexer.NamespaceIndexFunc(o) }
	stored := &obj{Namespace: "a", Name: "1", Tags: []string{"a"}}
	tests := []struct {
		name string
		f    indexer.IndexFunc[*obj]
		obj  *obj
		want error
	}{
		{"NamespaceIndexFunc", indexer.NamespaceIndexFunc[*obj], &obj{Namespace: "a", Name: "2", Tags: []string{"x"}}, nil},
		{"NamespaceIndexFunc from generic code", namespaceIndexers[*obj]()[indexer.NamespaceIndex], &obj{Namespace: "a", Name: "2"}, nil},
		{"a function calling NamespaceIndexFunc", wrapped, &obj{Namespace: "a", Name: "2"}, nil},
		{"another function giving the namespace", byTag, &obj{Namespace: "a", Name: "2", Tags: []string{"a"}}, nil},
		{"another value", byTag, &obj{Namespace: "a", Name: "2", Tags: []string{"x"}}, indexer.ErrReservedIndex},
		{"no value", byTag, &obj{Namespace: "a", Name: "2"}, indexer.ErrReservedIndex},
		{"the namespace and another value", byTag, &obj{Namespace: "a", Name: "2", Tags: []string{"a", "x"}}, indexer.ErrReservedIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := indexer.New(keys.Of[*obj], indexer.Indexers[*obj]{indexer.NamespaceIndex: tt.f})
			if err := x.Add(stored); err != nil {
				t.Fatal(err)
			}
			if err := x.Add(tt.obj); !errors.Is(err, tt.want) {
				t.Errorf("Add = %v, want %v", err, tt.want)
			}
			if err := x.Replace([]*obj{stored, tt.obj}); !errors.Is(err, tt.want) {
				t.Errorf("Replace = %v, want %v", err, tt.want)
			}
			late := indexer.New(keys.Of[*obj], nil)
			if err := late.Replace([]*obj{stored, tt.obj}); err != nil {
				t.Fatal(err)
			}
			if err := late.AddIndexers(indexer.Indexers[*obj]{indexer.NamespaceIndex: tt.f}); !errors.Is(err, tt.want) {
				t.Errorf("AddIndexers = %v, want %v", err, tt.want)
			}
			wantLen := 2
			if tt.want != nil {
				wantLen = 1
			}
			if got := len(indexer.NewLister(x).Namespace("a").List()); got != wantLen {
				t.Errorf("Namespace(\"a\").List() has %d objects, want %d", got, wantLen)
			}
		})
	}
}

// An Indexer of a type that is not a keys.Object has no Lister: its index
// named "namespace" is not checked.
func TestNamespaceIndexOfPlainType(t *testing.T) {
	x := indexer.New(func(s string) (string, error) { return s, nil },
		indexer.Indexers[string]{indexer.NamespaceIndex: func(s string) ([]string, error) { return []string{"x"}, nil }})
	if err := x.Add("a"); err != nil {
		t.Errorf("Add = %v, want nil", err)
	}
}

// With the namespace index, Lister.Namespace lists exactly the objects of
// the namespace, as it does without the index.
func TestListerNamespaceWithIndex(t *testing.T) {
	objs := []*obj{{Namespace: "a", Name: "1"}, {Namespace: "a", Name: "2"}, {Namespace: "b", Name: "1"}, {Name: "c"}}
	for _, indexers := range []indexer.Indexers[*obj]{nil, namespaceIndexers[*obj]()} {
		x := indexer.New(keys.Of[*obj], indexers)
		if err := x.Replace(objs); err != nil {
			t.Fatal(err)
		}
		l := indexer.NewLister(x)
		for ns, want := range map[string]int{"a": 2, "b": 1, "": 1, "d": 0} {
			if got := l.Namespace(ns).List(); len(got) != want {
				t.Errorf("indexes %v: Namespace(%q).List() has %d objects, want %d", indexers, ns, len(got), want)
			}
		}
	}
}
