package deltafifo_test

import (
	"testing"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// The informer's cache is the FIFO's KnownObjects.
var _ deltafifo.KnownObjects[*Pod] = (*indexer.Indexer[*Pod])(nil)

func TestIndexerAsKnownObjects(t *testing.T) {
	cache := indexer.New(keys.Of[*Pod], nil)
	for _, name := range []string{"a", "b"} {
		if err := cache.Add(&Pod{Namespace: "ns", Name: name, ResourceVersion: "1"}); err != nil {
			t.Fatal(err)
		}
	}
	f := deltafifo.New(keys.Of[*Pod], deltafifo.Options[*Pod]{KnownObjects: cache})
	if err := f.Delete(&Pod{Namespace: "ns", Name: "unknown"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(&Pod{Namespace: "ns", Name: "a", ResourceVersion: "2"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Replace(nil, "3"); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Key, RV  string
		Type     deltafifo.DeltaType
		Inferred bool
	}
	var all []got
	for f.Len() > 0 {
		err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[*Pod], _ bool) error {
			for _, d := range d {
				all = append(all, got{key, d.Object.ResourceVersion, d.Type, d.Inferred})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []got{
		{"ns/a", "2", deltafifo.Deleted, false}, // observed, kept over the inferred one
		{"ns/b", "1", deltafifo.Deleted, true},  // known, missing from the relist
	}
	if len(all) != len(want) {
		t.Fatalf("popped %+v, want %+v", all, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, all[i], want[i])
		}
	}
}
