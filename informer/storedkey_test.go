package informer

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/typedcache/typedcache/keys"
)

type keyed struct{ ns, name string }

func (k *keyed) GetNamespace() string       { return k.ns }
func (k *keyed) GetName() string            { return k.name }
func (k *keyed) GetResourceVersion() string { return "1" }

// TestStoredKey checks the DeltaFIFO's key function of an informer with the
// default KeyFunc: the cache's own string for a cached object, without
// allocating, and keys.Of's answer for any other.
func TestStoredKey(t *testing.T) {
	inf := newInformer(Options[*keyed]{})
	if err := inf.cache.Add(&keyed{"ns", "cached"}); err != nil {
		t.Fatal(err)
	}
	var stored string
	for k := range inf.cache.Keys() {
		stored = k
	}

	got, err := inf.storedKey(&keyed{"ns", "cached"})
	if err != nil || got != "ns/cached" || unsafe.StringData(got) != unsafe.StringData(stored) {
		t.Errorf("storedKey(cached) = %q, %v; want the cache's own %q", got, err, stored)
	}
	again := &keyed{"ns", "cached"}
	if n := testing.AllocsPerRun(100, func() { inf.storedKey(again) }); n != 0 {
		t.Errorf("storedKey(cached) allocates %v times, want 0", n)
	}
	if got, err := inf.storedKey(&keyed{"a/b", "new"}); err != nil || got != "a%2Fb/new" {
		t.Errorf("storedKey(new) = %q, %v; want %q, nil", got, err, "a%2Fb/new")
	}
	if _, err := inf.storedKey(&keyed{"ns", ""}); !errors.Is(err, keys.ErrEmptyName) {
		t.Errorf("storedKey(no name) error = %v, want %v", err, keys.ErrEmptyName)
	}
}
