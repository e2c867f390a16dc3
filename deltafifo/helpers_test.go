package deltafifo_test

import (
	"errors"
	"iter"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
)

// thing is the object type of most tests: a value type, so that deltas
// compare with cmp.Diff without options.
type thing struct {
	Name    string
	Version int
	// Tag is set by tagTransform.
	Tag string
}

var errNoName = errors.New("thing has no name")

// thingKey is the key function of the tests: the name, which must not be
// empty.
func thingKey(t thing) (string, error) {
	if t.Name == "" {
		return "", errNoName
	}
	return t.Name, nil
}

var errTransform = errors.New("transform refused")

// tagTransform sets Tag to "t", and fails for negative versions.
func tagTransform(t thing) (thing, error) {
	if t.Version < 0 {
		return t, errTransform
	}
	t.Tag = "t"
	return t, nil
}

// known is a map-backed KnownObjects that yields its keys in sorted order,
// so that the order of Replace's inferred deletions is predictable.
type known struct {
	mu sync.Mutex
	m  map[string]thing
}

func newKnown(things ...thing) *known {
	k := &known{m: make(map[string]thing)}
	for _, t := range things {
		k.m[t.Name] = t
	}
	return k
}

func (k *known) GetByKey(key string) (thing, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.m[key]
	return t, ok
}

func (k *known) Keys() iter.Seq[string] {
	k.mu.Lock()
	keys := slices.Sorted(maps.Keys(k.m))
	k.mu.Unlock()
	return slices.Values(keys)
}

// apply applies deltas to k as an informer applies them to its cache.
func (k *known) apply(d deltafifo.Deltas[thing]) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, d := range d {
		if d.Type == deltafifo.Deleted {
			delete(k.m, d.Object.Name)
		} else {
			k.m[d.Object.Name] = d.Object
		}
	}
}

// popped is what one Pop handed to its processor.
type popped struct {
	Key     string
	Deltas  deltafifo.Deltas[thing]
	Initial bool
}

// popOne pops one ready key and returns what the processor got; it fails
// the test if no key is ready.
func popOne(t *testing.T, f *deltafifo.DeltaFIFO[thing]) popped {
	t.Helper()
	if f.Len() == 0 {
		t.Fatalf("popOne: nothing ready (keys %q)", f.ListKeys())
	}
	var got popped
	err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[thing], initial bool) error {
		got = popped{key, slices.Clone(d), initial}
		return nil
	})
	if err != nil {
		t.Fatalf("Pop() = %v", err)
	}
	return got
}

// popAll pops until nothing is ready.
func popAll(t *testing.T, f *deltafifo.DeltaFIFO[thing]) []popped {
	t.Helper()
	var out []popped
	for f.Len() > 0 {
		out = append(out, popOne(t, f))
	}
	return out
}

// mustCheck fails the test if f's internal invariants do not hold.
func mustCheck(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
	t.Helper()
	if err := f.CheckInvariants(); err != nil {
		t.Fatalf("CheckInvariants() = %v", err)
	}
}

func diffPopped(t *testing.T, call string, want, got []popped) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", call, diff)
	}
}

// Shorthands for deltas.
func added(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Added, Object: thing{Name: name, Version: v}}
}

func updated(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Updated, Object: thing{Name: name, Version: v}}
}

func deleted(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Deleted, Object: thing{Name: name, Version: v}}
}

func inferred(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Deleted, Object: thing{Name: name, Version: v}, Inferred: true}
}

func replaced(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Replaced, Object: thing{Name: name, Version: v}}
}

func synced(name string, v int) deltafifo.Delta[thing] {
	return deltafifo.Delta[thing]{Type: deltafifo.Sync, Object: thing{Name: name, Version: v}}
}

func ds(d ...deltafifo.Delta[thing]) deltafifo.Deltas[thing] { return d }
