package indexer_test

import (
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// fill adds n objects spread over 10 namespaces and returns them by key.
func fill(t testing.TB, x *indexer.Indexer[*obj], n int) map[string]*obj {
	t.Helper()
	want := make(map[string]*obj, n)
	for i := range n {
		o := &obj{Namespace: "ns" + strconv.Itoa(i%10), Name: "o" + strconv.Itoa(i), Tags: []string{"t" + strconv.Itoa(i%7)}}
		if err := x.Add(o); err != nil {
			t.Fatal(err)
		}
		want[keys.Join(o.Namespace, o.Name)] = o
	}
	return want
}

// TestIterationWalksASnapshot pins that All and Keys see the store as it
// was when the iteration started, even when the loop body itself writes to
// every block.
func TestIterationWalksASnapshot(t *testing.T) {
	x := newTestIndexer()
	want := fill(t, x, 1000)
	before := maps.Clone(want)
	seen := map[string]*obj{}
	n := 0
	for key, o := range x.All() {
		seen[key] = o
		// Interleave deletes, updates and adds, so that entries move
		// between blocks while the iteration is under way.
		switch n % 3 {
		case 0:
			if err := x.Delete(o); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := x.Update(&obj{Namespace: o.Namespace, Name: o.Name, RV: "new"}); err != nil {
				t.Fatal(err)
			}
		default:
			if err := x.Add(&obj{Namespace: "late", Name: strconv.Itoa(n)}); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	if !maps.Equal(before, seen) {
		t.Errorf("All() saw %d objects, not the %d stored when it started", len(seen), len(before))
	}
	keys := map[string]bool{}
	after := x.Len()
	for key := range x.Keys() {
		keys[key] = true
		if _, _, err := x.DeleteKey(key); err != nil {
			t.Fatal(err)
		}
	}
	if len(keys) != after || x.Len() != 0 {
		t.Errorf("Keys() saw %d keys of %d and left %d", len(keys), after, x.Len())
	}
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

// TestSnapshotsAcrossDirectories pins copy-on-write where the store needs
// several directories of blocks: iterations started while the store grows
// past three directories and shrinks back into one see exactly what was
// stored when they started, and the store stays consistent.
func TestSnapshotsAcrossDirectories(t *testing.T) {
	const most = 3*64*128 + 500 // three directories of 64 blocks of 128, and some
	rng := rand.New(rand.NewPCG(7, 8))
	x := newTestIndexer()
	want := map[string]*obj{}
	var held []string // of want, for picking one at random
	at := map[string]int{}
	var open []*pending
	start := func() {
		next, stop := iter.Pull2(x.All())
		p := &pending{next: next, stop: stop, seen: map[string]*obj{}, want: maps.Clone(want)}
		if k, o, ok := next(); ok { // the snapshot is taken now
			p.seen[k] = o
		}
		open = append(open, p)
		if len(open) > 3 {
			open[0].drain(t)
			open = open[1:]
		}
	}
	put := func(o *obj) {
		if err := x.Update(o); err != nil {
			t.Fatal(err)
		}
		k := keys.Join(o.Namespace, o.Name)
		if _, ok := want[k]; !ok {
			at[k] = len(held)
			held = append(held, k)
		}
		want[k] = o
	}
	remove := func() {
		i := rng.IntN(len(held))
		k := held[i]
		if _, _, err := x.DeleteKey(k); err != nil {
			t.Fatal(err)
		}
		last := held[len(held)-1]
		held[i], at[last] = last, i
		held = held[:len(held)-1]
		delete(at, k)
		delete(want, k)
	}
	update := func() {
		o := *want[held[rng.IntN(len(held))]]
		o.RV = strconv.Itoa(rng.IntN(1000))
		put(&o)
	}
	added := 0
	for round := range 2 {
		for len(want) < most {
			switch r := rng.IntN(10); {
			case r < 6 || len(held) == 0:
				put(&obj{Namespace: "ns" + strconv.Itoa(added%10), Name: "o" + strconv.Itoa(added)})
				added++
			case r < 8:
				update()
			default:
				remove()
			}
			if rng.IntN(500) == 0 {
				start()
			}
		}
		for len(want) > 100 {
			if rng.IntN(4) == 0 {
				update()
			} else {
				remove()
			}
			if rng.IntN(500) == 0 {
				start()
			}
		}
		if err := x.CheckInvariants(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	for _, p := range open {
		p.drain(t)
	}
	if got := x.List(); len(got) != len(want) {
		t.Errorf("List returned %d objects, want %d", len(got), len(want))
	}
	if got := x.ListKeys(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(maps.Keys(want))) {
		t.Errorf("ListKeys returned %d keys, not those stored", len(got))
	}
}

// TestIterationStopsEarly pins that breaking out of All and Keys works.
func TestIterationStopsEarly(t *testing.T) {
	x := newTestIndexer()
	fill(t, x, 300)
	n := 0
	for range x.All() {
		if n++; n == 5 {
			break
		}
	}
	for range x.Keys() {
		if n++; n == 10 {
			break
		}
	}
	if n != 10 {
		t.Errorf("iterations ran %d steps, want 10", n)
	}
}

// TestConcurrentUse runs writers on overlapping keys against readers of
// every kind. The race detector checks the memory accesses; the invariants
// and the final state check the result.
func TestConcurrentUse(t *testing.T) {
	x := newTestIndexer()
	fill(t, x, 500)
	const writers, readers, writes = 4, 4, 2000
	final := make([]map[string]*obj, writers) // what each writer last wrote to its own keys
	var wg sync.WaitGroup
	for w := range writers {
		final[w] = map[string]*obj{}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range writes {
				// Even names are shared by all writers; odd ones belong to w.
				name := "o" + strconv.Itoa(2*r.IntN(300))
				if i%2 == 1 {
					name = "w" + strconv.Itoa(w) + "-" + strconv.Itoa(r.IntN(50))
				}
				o := &obj{Namespace: "ns" + strconv.Itoa(r.IntN(10)), Name: name, Tags: []string{"t" + strconv.Itoa(r.IntN(7))}}
				key := keys.Join(o.Namespace, o.Name)
				var err error
				switch r.IntN(8) {
				case 0:
					_, _, err = x.DeleteKey(key)
					if i%2 == 1 {
						delete(final[w], key)
					}
				default:
					err = x.Update(o)
					if i%2 == 1 {
						final[w][key] = o
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for i := range writes / 4 {
				switch (r + i) % 5 {
				case 0:
					_ = x.List()
				case 1:
					if _, err := x.ByIndex(indexer.NamespaceIndex, "ns3"); err != nil {
						t.Error(err)
					}
				case 2:
					for range x.All() {
					}
				case 3:
					x.GetByKey("ns1/o1")
				default:
					if _, err := x.Index("tag", &obj{Tags: []string{"t1", "t2"}}); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := x.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	for w, objs := range final {
		for key, o := range objs {
			if got, ok := x.GetByKey(key); !ok || got != o {
				t.Errorf("writer %d: GetByKey(%q) = %v, %t; want its last write %v", w, key, got, ok, o)
			}
		}
	}
}

// TestBulkWritesWhileWriting runs AddIndexers and Replace against
// concurrent writers.
func TestBulkWritesWhileWriting(t *testing.T) {
	x := newTestIndexer()
	fill(t, x, 500)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 20 {
			if err := x.Replace(x.List()); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for i := range 2000 {
			if err := x.Update(&obj{Namespace: "ns1", Name: "o" + strconv.Itoa(i%600), RV: strconv.Itoa(i)}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	if err := x.AddIndexers(indexer.Indexers[*obj]{"rv": rvIndex}); err != nil {
		t.Error(err)
	}
	wg.Wait()
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestAllocations(t *testing.T) {
	static := []string{"same"}
	x := indexer.New(keys.Of[*obj], indexer.Indexers[*obj]{
		"static": func(*obj) ([]string, error) { return static, nil },
	})
	fill(t, x, 1000)
	l := indexer.NewLister(x)
	o := &obj{Namespace: "ns3", Name: "o3"}
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{"GetByKey", func() { x.GetByKey("ns3/o3") }, 0},
		{"Lister.Get", func() { l.Get("ns3", "o3") }, 0},
		{"Lister.Namespace.Get", func() { l.Namespace("ns3").Get("o3") }, 0},
		{"walking All", func() {
			for range x.All() {
			}
		}, 0},
		{"walking Keys", func() {
			for range x.Keys() {
			}
		}, 0},
		{"Put with unchanged index values", func() {
			if _, _, err := x.Put("ns3/o3", o); err != nil {
				t.Fatal(err)
			}
		}, 0},
		{"Update of a stored object", func() {
			if err := x.Update(o); err != nil {
				t.Fatal(err)
			}
		}, 0},
		// A write after a listing ended copies nothing: only List's result
		// is allocated.
		{"List, then Put", func() {
			_ = x.List()
			if _, _, err := x.Put("ns3/o3", o); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"All, then Put", func() {
			for range x.All() {
				break
			}
			if _, _, err := x.Put("ns3/o3", o); err != nil {
				t.Fatal(err)
			}
		}, 0},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.f); got != tt.want {
			t.Errorf("%s: %v allocations, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSnapshotsAreConsistent pins that every walk sees the store at one
// instant, while a writer updates objects 0..n-1 in order, generation after
// generation: a walk must see generation g for a prefix of the objects and
// g-1 for the rest.
func TestSnapshotsAreConsistent(t *testing.T) {
	const n, generations, readers = 300, 30, 4
	x := newTestIndexer()
	update := func(i, g int) {
		if err := x.Update(&obj{Namespace: "ns", Name: strconv.Itoa(i), RV: strconv.Itoa(g), Tags: []string{strconv.Itoa(g % 3)}}); err != nil {
			t.Error(err)
		}
	}
	for i := range n {
		update(i, 0)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				gens := make([]int, n)
				seen := 0
				for _, o := range x.All() {
					i, _ := strconv.Atoi(o.Name)
					gens[i], _ = strconv.Atoi(o.RV)
					seen++
				}
				if seen != n {
					t.Errorf("walk saw %d objects, want %d", seen, n)
					return
				}
				for i := 1; i < n; i++ {
					if gens[i] > gens[i-1] || gens[0]-gens[i] > 1 {
						t.Errorf("walk saw generations %v: not one instant", gens)
						return
					}
				}
			}
		})
	}
	for g := 1; g <= generations; g++ {
		for i := range n {
			update(i, g)
		}
	}
	close(done)
	wg.Wait()
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

// TestWritesRacingAddIndexers pins that a write whose index values were
// computed before AddIndexers added an index also indexes its object in
// the new index: AddIndexers does not wait for writers that are still
// running index functions, so they must catch up.
func TestWritesRacingAddIndexers(t *testing.T) {
	tests := []struct {
		name  string
		write func(x *indexer.Indexer[*obj], o *obj) error
	}{
		{"Put", func(x *indexer.Indexer[*obj], o *obj) error {
			_, _, err := x.Put("ns/slow", o)
			return err
		}},
		{"Replace", func(x *indexer.Indexer[*obj], o *obj) error {
			return x.Replace([]*obj{{Namespace: "ns", Name: "a", RV: "1"}, o})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slow := &obj{Namespace: "ns", Name: "slow", RV: "7"}
			entered, release := make(chan struct{}), make(chan struct{})
			blocked := false // only the write's call blocks
			x := indexer.New(keys.Of[*obj], indexer.Indexers[*obj]{
				"block": func(o *obj) ([]string, error) {
					if o == slow && !blocked {
						blocked = true
						entered <- struct{}{}
						<-release
					}
					return []string{"b"}, nil
				},
			})
			if err := x.Add(&obj{Namespace: "ns", Name: "a", RV: "1"}); err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			go func() { done <- tt.write(x, slow) }()
			<-entered
			if err := x.AddIndexers(indexer.Indexers[*obj]{"rv": rvIndex}); err != nil {
				t.Fatal(err)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatalf("write error = %v", err)
			}
			if keys, err := x.IndexKeys("rv", "7"); err != nil || !slices.Equal(keys, []string{"ns/slow"}) {
				t.Errorf("IndexKeys(rv, 7) = %q, %v; want [ns/slow]", keys, err)
			}
			if err := x.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReaderCountedBeforeAWrite pins the case that copy-on-write must not
// miss: a reader counted before a write began, which loads the view that
// write published only after it ended, must see that view unchanged by the
// writes that follow while it reads.
func TestReaderCountedBeforeAWrite(t *testing.T) {
	x := newTestIndexer()
	put := func(rv string) {
		if err := x.Update(&obj{Namespace: "ns", Name: "a", RV: rv}); err != nil {
			t.Fatal(err)
		}
	}
	put("0")
	load, release := x.CountReader()
	put("1")
	objAt := load()
	put("2")
	put("3")
	if got := objAt(0).RV; got != "1" {
		t.Errorf("the reader's view holds version %s, want 1: a write changed it in place", got)
	}
	release()
	put("4")
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
