package indexer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/typedcache/typedcache/indexer"
)

// A zero Indexer does not panic: every method that returns an error says
// to call indexer.New, and the other reads find nothing.
func TestZeroIndexer(t *testing.T) {
	var x indexer.Indexer[*obj]
	o := &obj{Namespace: "ns", Name: "a"}
	errCalls := []struct {
		name string
		call func() error
	}{
		{"Add", func() error { return x.Add(o) }},
		{"Update", func() error { return x.Update(o) }},
		{"Delete", func() error { return x.Delete(o) }},
		{"Put", func() error { _, _, err := x.Put("ns/a", o); return err }},
		{"DeleteKey", func() error { _, _, err := x.DeleteKey("ns/a"); return err }},
		{"Replace", func() error { return x.Replace([]*obj{o}) }},
		{"Replace empty", func() error { return x.Replace(nil) }},
		{"AddIndexers", func() error { return x.AddIndexers(testIndexers()) }},
		{"Get", func() error { _, _, err := x.Get(o); return err }},
		{"Index", func() error { _, err := x.Index(indexer.NamespaceIndex, o); return err }},
		{"ByIndex", func() error { _, err := x.ByIndex(indexer.NamespaceIndex, "ns"); return err }},
		{"IndexKeys", func() error { _, err := x.IndexKeys(indexer.NamespaceIndex, "ns"); return err }},
		{"ListIndexFuncValues", func() error { _, err := x.ListIndexFuncValues(indexer.NamespaceIndex); return err }},
	}
	for _, c := range errCalls {
		if err := c.call(); err == nil || !strings.Contains(err.Error(), "indexer.New") {
			t.Errorf("zero Indexer: %s = %v, want an error naming indexer.New", c.name, err)
		}
	}

	if got, ok := x.GetByKey("ns/a"); ok || got != nil {
		t.Errorf("zero Indexer: GetByKey = %v, %t; want nil, false", got, ok)
	}
	if n := x.Len(); n != 0 {
		t.Errorf("zero Indexer: Len = %d, want 0", n)
	}
	if got := x.List(); got == nil || len(got) != 0 {
		t.Errorf("zero Indexer: List = %#v, want an empty slice", got)
	}
	if got := x.ListKeys(); got == nil || len(got) != 0 {
		t.Errorf("zero Indexer: ListKeys = %#v, want an empty slice", got)
	}
	if n := len(slices.Collect(x.Keys())); n != 0 {
		t.Errorf("zero Indexer: Keys yields %d keys, want 0", n)
	}
	for range x.All() {
		t.Error("zero Indexer: All yields an entry")
	}
	if key, err := indexer.KeyFunc(&x)(o); key != "ns/a" || err != nil {
		t.Errorf("zero Indexer: KeyFunc = %q, %v; want %q, nil", key, err, "ns/a")
	}
}

// A zero Lister, a Lister of a nil Indexer and a Lister of a zero Indexer
// read as empty.
func TestZeroLister(t *testing.T) {
	listers := []struct {
		name string
		l    indexer.Lister[*obj]
	}{
		{"zero Lister", indexer.Lister[*obj]{}},
		{"NewLister(nil)", indexer.NewLister[*obj](nil)},
		{"Lister of a zero Indexer", indexer.NewLister(new(indexer.Indexer[*obj]))},
	}
	for _, tt := range listers {
		t.Run(tt.name, func(t *testing.T) {
			all := func(*obj) bool { return true }
			if got, ok := tt.l.Get("ns", "a"); ok || got != nil {
				t.Errorf("Get = %v, %t; want nil, false", got, ok)
			}
			if got := tt.l.List(); len(got) != 0 {
				t.Errorf("List = %v, want empty", got)
			}
			if got := slices.Collect(tt.l.All()); len(got) != 0 {
				t.Errorf("All yields %v, want nothing", got)
			}
			if got := tt.l.Select(all); len(got) != 0 {
				t.Errorf("Select = %v, want empty", got)
			}
			ns := tt.l.Namespace("ns")
			if got, ok := ns.Get("a"); ok || got != nil {
				t.Errorf("Namespace.Get = %v, %t; want nil, false", got, ok)
			}
			if got := ns.List(); len(got) != 0 {
				t.Errorf("Namespace.List = %v, want empty", got)
			}
			if got := ns.Select(all); len(got) != 0 {
				t.Errorf("Namespace.Select = %v, want empty", got)
			}
		})
	}
}
