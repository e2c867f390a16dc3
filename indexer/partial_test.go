package indexer_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/indexer"
)

// PutPartial stores the object even when an IndexFunc fails: only the
// failing indexes leave it out, the error is an *IndexError naming the
// index and the key, and a later write that indexes cleanly puts it back.
func TestPutPartial(t *testing.T) {
	x := newTestIndexer()
	if err := x.AddIndexers(indexer.Indexers[*obj]{"fail2": failIndex}); err != nil {
		t.Fatal(err)
	}
	failing := &obj{Namespace: "ns", Name: "a", Tags: []string{"t"}, Fail: true}
	_, existed, err := x.PutPartial("ns/a", failing)
	if existed || err == nil {
		t.Fatalf("PutPartial(failing) = %t, %v; want false, an error", existed, err)
	}
	var failed []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ie *indexer.IndexError
		if !errors.As(e, &ie) || ie.Key != "ns/a" || !errors.Is(ie, errFail) {
			t.Errorf("PutPartial error %v, want an *IndexError for key ns/a wrapping errFail", e)
			continue
		}
		failed = append(failed, ie.Index)
	}
	if diff := cmp.Diff([]string{"fail", "fail2"}, failed); diff != "" {
		t.Errorf("failed indexes mismatch (-want +got):\n%s", diff)
	}
	if got, ok := x.GetByKey("ns/a"); !ok || got != failing {
		t.Errorf("GetByKey(ns/a) = %v, %t; want the failing object", got, ok)
	}
	inIndex := func(index, value string) bool {
		keys, err := x.IndexKeys(index, value)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(keys, "ns/a")
	}
	if !inIndex("tag", "t") || !inIndex(indexer.NamespaceIndex, "ns") || inIndex("fail", "ok") || inIndex("fail2", "ok") {
		t.Errorf("after a failing PutPartial: in tag %t, namespace %t, fail %t, fail2 %t; want true, true, false, false",
			inIndex("tag", "t"), inIndex(indexer.NamespaceIndex, "ns"), inIndex("fail", "ok"), inIndex("fail2", "ok"))
	}

	fixed := &obj{Namespace: "ns", Name: "a", Tags: []string{"t"}}
	if old, existed, err := x.PutPartial("ns/a", fixed); err != nil || !existed || old != failing {
		t.Errorf("PutPartial(fixed) = %v, %t, %v; want the failing object, true, nil", old, existed, err)
	}
	if !inIndex("fail", "ok") || !inIndex("fail2", "ok") {
		t.Error("after a clean PutPartial, the object is still missing from the fail indexes")
	}
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}

	// Put, unlike PutPartial, changes nothing when an index fails.
	if _, _, err := x.Put("ns/a", failing); !errors.Is(err, errFail) {
		t.Errorf("Put(failing) = %v, want errFail", err)
	}
	if got, _ := x.GetByKey("ns/a"); got != fixed {
		t.Errorf("after a failing Put, GetByKey(ns/a) = %v, want the fixed object", got)
	}
	var zero indexer.Indexer[*obj]
	if _, _, err := zero.PutPartial("ns/a", fixed); err == nil {
		t.Error("PutPartial on a zero Indexer succeeded")
	}
}
