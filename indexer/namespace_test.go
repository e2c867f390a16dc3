package indexer_test

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// TestNamespaceIndexFunc pins that every call returns exactly the object's
// namespace, even after the cache slot that served it was reused by other
// namespaces (more than the cache holds), and that slices handed out
// earlier never change.
func TestNamespaceIndexFunc(t *testing.T) {
	const namespaces = 5000
	type result struct {
		ns  string
		got []string
	}
	var results []result
	for round := range 3 {
		for i := range namespaces {
			ns := "ns-" + strconv.Itoa(i)
			if i == 0 {
				ns = "" // cluster-scoped
			}
			got, err := indexer.NamespaceIndexFunc(&obj{Namespace: ns, Name: "n"})
			if err != nil || !slices.Equal(got, []string{ns}) {
				t.Fatalf("round %d: NamespaceIndexFunc(namespace %q) = %q, %v; want [%q], nil", round, ns, got, err, ns)
			}
			results = append(results, result{ns, got})
		}
	}
	for _, r := range results {
		if !slices.Equal(r.got, []string{r.ns}) {
			t.Fatalf("a slice returned for namespace %q changed to %q", r.ns, r.got)
		}
	}
}

// TestNamespaceIndexFuncConcurrent runs goroutines over overlapping sets
// of namespaces, more than the cache holds; run it with -race.
func TestNamespaceIndexFuncConcurrent(t *testing.T) {
	const goroutines, namespaces, rounds = 8, 1500, 5
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for r := range rounds {
				for i := range namespaces {
					ns := "ns-" + strconv.Itoa((i*(g+1)+r)%(2*namespaces))
					got, _ := indexer.NamespaceIndexFunc(&obj{Namespace: ns, Name: "n"})
					if len(got) != 1 || got[0] != ns {
						errs <- fmt.Sprintf("NamespaceIndexFunc(namespace %q) = %q, want [%q]", ns, got, ns)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestNamespaceIndexAllocations pins that indexing by namespace allocates
// nothing once the namespace is cached, so that an update whose namespace
// did not change allocates only what the key function does.
func TestNamespaceIndexAllocations(t *testing.T) {
	x := indexer.New(keys.Of[*obj], indexer.Indexers[*obj]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*obj],
	})
	o := &obj{Namespace: "ns", Name: "a"}
	if err := x.Add(o); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    func()
	}{
		{"NamespaceIndexFunc", func() { _, _ = indexer.NamespaceIndexFunc(o) }},
		{"Put with the namespace index", func() {
			if _, _, err := x.Put("ns/a", o); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got != 0 {
			t.Errorf("%s: %v allocations, want 0", tt.name, got)
		}
	}
}
