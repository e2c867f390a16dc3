package indexer_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

func listerObjects() []*obj {
	return []*obj{
		{Namespace: "ns", Name: "a", Tags: []string{"x"}},
		{Namespace: "ns", Name: "b"},
		{Namespace: "other", Name: "a", Tags: []string{"x"}},
		{Namespace: "a/b", Name: "c/d"},
		{Name: "node", Tags: []string{"x"}},
	}
}

func TestLister(t *testing.T) {
	for _, withIndex := range []bool{true, false} {
		indexers := indexer.Indexers[*obj]{}
		if withIndex {
			indexers[indexer.NamespaceIndex] = indexer.NamespaceIndexFunc[*obj]
		}
		x := indexer.New(keys.Of[*obj], indexers)
		if err := x.Replace(listerObjects()); err != nil {
			t.Fatal(err)
		}
		l := indexer.NewLister(x)
		tagged := func(o *obj) bool { return len(o.Tags) > 0 }
		tests := []struct {
			name string
			got  []string
			want []string
		}{
			{"List", names(l.List()), []string{"a%2Fb/c%2Fd", "node", "ns/a", "ns/b", "other/a"}},
			{"All", names(collect(l.All())), []string{"a%2Fb/c%2Fd", "node", "ns/a", "ns/b", "other/a"}},
			{"Select", names(l.Select(tagged)), []string{"node", "ns/a", "other/a"}},
			{"Namespace.List", names(l.Namespace("ns").List()), []string{"ns/a", "ns/b"}},
			{"Namespace.Select", names(l.Namespace("ns").Select(tagged)), []string{"ns/a"}},
			{"Namespace with a slash", names(l.Namespace("a/b").List()), []string{"a%2Fb/c%2Fd"}},
			{"cluster-scoped namespace", names(l.Namespace("").List()), []string{"node"}},
			{"empty namespace", names(l.Namespace("none").List()), nil},
		}
		for _, tt := range tests {
			if diff := cmp.Diff(tt.want, tt.got, cmpEmpty); diff != "" {
				t.Errorf("namespace index %t: %s mismatch (-want +got):\n%s", withIndex, tt.name, diff)
			}
		}

		gets := []struct {
			namespace, name string
			found           bool
		}{
			{"ns", "a", true},
			{"other", "a", true},
			{"", "node", true},
			{"a/b", "c/d", true},
			{"ns", "node", false},
			{"", "a", false},
			{"ns", string(make([]byte, 200)), false}, // longer than the stack buffer
		}
		for _, g := range gets {
			got, ok := l.Get(g.namespace, g.name)
			if ok != g.found || ok && (got.Namespace != g.namespace || got.Name != g.name) {
				t.Errorf("Get(%q, %q) = %v, %t; want found %t", g.namespace, g.name, got, ok, g.found)
			}
			got, ok = l.Namespace(g.namespace).Get(g.name)
			if ok != g.found || ok && (got.Namespace != g.namespace || got.Name != g.name) {
				t.Errorf("Namespace(%q).Get(%q) = %v, %t; want found %t", g.namespace, g.name, got, ok, g.found)
			}
		}
	}
}

func collect[T any](seq func(func(T) bool)) []T {
	var out []T
	for v := range seq {
		out = append(out, v)
	}
	return out
}

func TestListerAllStopsEarly(t *testing.T) {
	x := indexer.New(keys.Of[*obj], nil)
	if err := x.Replace(listerObjects()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range indexer.NewLister(x).All() {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("All() ran %d steps after break at 2", n)
	}
}
