package indexer_test

import (
	"strconv"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// TestListerGetWhileWriting pins that Lister.Get, which reads without the
// lock, finds every object that stays stored while a writer updates it,
// adds and deletes others around it (moving entries and growing and
// shrinking the store), and replaces the whole content; and that whatever
// it returns is an object stored under the name asked for.
func TestListerGetWhileWriting(t *testing.T) {
	const stable, churn, rounds, readers = 50, 60, 400, 2
	x := newTestIndexer()
	l := indexer.NewLister(x)
	version := func(i, v int) *obj {
		return &obj{Namespace: "ns" + strconv.Itoa(i%3), Name: "o" + strconv.Itoa(i), RV: strconv.Itoa(v)}
	}
	var kept []*obj
	for i := range stable {
		kept = append(kept, version(i, 0))
	}
	if err := x.Replace(kept); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for n := r; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				// Mostly the stable objects, which deletes move.
				i := n % stable
				if n%8 == 0 {
					i = n % (stable + churn)
				}
				want := version(i, 0)
				got, ok := l.Get(want.Namespace, want.Name)
				if i < stable && !ok {
					t.Errorf("Get(%q, %q) missed an object that stays stored", want.Namespace, want.Name)
					return
				}
				if ok && (got.Namespace != want.Namespace || got.Name != want.Name) {
					t.Errorf("Get(%q, %q) = %s/%s", want.Namespace, want.Name, got.Namespace, got.Name)
					return
				}
				if got, ok := l.Namespace(want.Namespace).Get(want.Name); i < stable && (!ok || got.Name != want.Name) {
					t.Errorf("Namespace(%q).Get(%q) = %v, %t", want.Namespace, want.Name, got, ok)
					return
				}
			}
		})
	}
	for round := range rounds {
		// The stable objects come last, so that deleting churn moves them
		// into the holes.
		var content []*obj
		for i := stable; i < stable+churn; i++ {
			content = append(content, version(i, round))
		}
		if err := x.Replace(append(content, kept...)); err != nil {
			t.Fatal(err)
		}
		for i := stable; i < stable+churn; i += 2 {
			if err := x.Delete(version(i, round)); err != nil {
				t.Fatal(err)
			}
			if err := x.Update(version(i%stable, round*churn+i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := stable + 1; i < stable+churn; i += 2 {
			if _, _, err := x.DeleteKey(keys.Join("ns"+strconv.Itoa(i%3), "o"+strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := stable; i < stable+churn; i++ {
			if err := x.Add(version(i, round)); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	wg.Wait()
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
