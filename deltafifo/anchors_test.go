package deltafifo_test

// Tests for the DeltaFIFO subtleties of client-go listed in
// /work/shared/reference/anchors.md, section (b), items 9 to 14 (item 16,
// batching, is in batch_test.go).

import (
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
)

// Anchor (b) 9: only consecutive deletions are merged, keeping the observed
// one over an inferred one.
func TestConsecutiveDeletesCollapse(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		known  []thing
		ops    []op
		want   []popped
	}{
		{
			name:   "observed then observed",
			reason: "the older deletion stays",
			known:  []thing{th("a", 1)},
			ops:    []op{opDelete("a", 2), opDelete("a", 3)},
			want:   []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name:   "observed then inferred",
			reason: "the observed deletion wins",
			ops:    []op{opAdd("a", 1), opDelete("a", 2), opReplace()},
			want:   []popped{{"a", ds(added("a", 1), deleted("a", 2)), false}},
		},
		{
			name:   "inferred then observed",
			reason: "the observed deletion wins",
			ops:    []op{opAdd("a", 1), opReplace(), opDelete("a", 2)},
			want:   []popped{{"a", ds(added("a", 1), deleted("a", 2)), false}},
		},
		{
			name:   "inferred then inferred",
			reason: "two relists without the key: one deletion",
			ops:    []op{opAdd("a", 1), opReplace(), opReplace()},
			want:   []popped{{"a", ds(added("a", 1), inferred("a", 1)), false}},
		},
		{
			name:   "not consecutive",
			reason: "a deletion, an add and a deletion are three deltas",
			ops:    []op{opAdd("a", 1), opDelete("a", 2), opAdd("a", 3), opDelete("a", 4)},
			want:   []popped{{"a", ds(added("a", 1), deleted("a", 2), added("a", 3), deleted("a", 4)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := deltafifo.Options[thing]{}
			if tt.known != nil {
				opts.KnownObjects = newKnown(tt.known...)
			}
			diffPopped(t, "popAll()", tt.want, runScript(t, opts, tt.ops))
		})
	}
}

// Anchor (b) 10: Delete of a key that is neither queued nor known is
// dropped.
func TestDeleteOfUnknownKeyIsDropped(t *testing.T) {
	tests := []struct {
		name  string
		known []thing // nil: no KnownObjects
		ops   []op
		want  []popped
	}{
		{name: "no known objects", ops: []op{opDelete("a", 1)}},
		{name: "not in known objects", known: []thing{th("b", 1)}, ops: []op{opDelete("a", 1)}},
		{
			name: "popped before",
			ops:  []op{opAdd("a", 1), func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) { popOne(t, f) }, opDelete("a", 2)},
		},
		{
			name:  "known",
			known: []thing{th("a", 1)},
			ops:   []op{opDelete("a", 2)},
			want:  []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name: "queued",
			ops:  []op{opAdd("a", 1), opDelete("a", 2)},
			want: []popped{{"a", ds(added("a", 1), deleted("a", 2)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := deltafifo.Options[thing]{}
			if tt.known != nil {
				opts.KnownObjects = newKnown(tt.known...)
			}
			f := deltafifo.New(thingKey, opts)
			for _, o := range tt.ops {
				o(t, f)
			}
			if !f.HasSynced() {
				t.Error("HasSynced() = false after a Delete before any Replace, want true")
			}
			diffPopped(t, "popAll()", tt.want, popAll(t, f))
		})
	}
}

// ghostKnown lists keys it cannot return, like a cache that changed
// between Keys and GetByKey.
type ghostKnown struct {
	*known
	ghosts []string
}

func (g ghostKnown) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range g.known.Keys() {
			if !yield(k) {
				return
			}
		}
		for _, k := range g.ghosts {
			if !yield(k) {
				return
			}
		}
	}
}

// Anchor (b) 11: Replace emits Replaced for every listed object, then one
// inferred deletion with the newest known state for every queued or known
// key missing from the list.
func TestReplaceInfersDeletions(t *testing.T) {
	k := ghostKnown{known: newKnown(th("c1", 1), th("c2", 1), th("q", 1)), ghosts: []string{"z"}}
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
	for _, o := range []op{
		opAdd("q", 2),    // queued and known, missing from the list: newest is the queued state
		opUpdate("l", 2), // queued and listed
		opReplace(th("l", 3), th("n", 1), th("c2", 1)),
	} {
		o(t, f)
		mustCheck(t, f)
	}
	want := []popped{
		{"q", ds(added("q", 2), inferred("q", 2)), false},
		{"l", ds(updated("l", 2), replaced("l", 3)), false},
		{"n", ds(replaced("n", 1)), false},
		{"c2", ds(replaced("c2", 1)), false},
		{"c1", ds(inferred("c1", 1)), false},                                              // known only: the cached state
		{"z", ds(deltafifo.Delta[thing]{Type: deltafifo.Deleted, Inferred: true}), false}, // nothing known: zero value
	}
	diffPopped(t, "popAll()", want, popAll(t, f))
}

// Anchor (b) 12: HasSynced waits for the items of the first Replace only,
// and is true at once after an Add, Update or Delete before any Replace.
func TestHasSynced(t *testing.T) {
	t.Run("first Replace", func(t *testing.T) {
		k := newKnown(th("gone", 1))
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
		if f.HasSynced() {
			t.Fatal("HasSynced() = true on a new FIFO")
		}
		if err := f.Replace([]thing{th("a", 1), th("b", 1)}, "1"); err != nil {
			t.Fatal(err)
		}
		// A second Replace and a later Add do not extend the initial set.
		if err := f.Replace([]thing{th("a", 2), th("b", 2)}, "2"); err != nil {
			t.Fatal(err)
		}
		if err := f.Add(th("late", 1)); err != nil {
			t.Fatal(err)
		}
		// Three initial keys (a, b and the inferred deletion of gone).
		for i, want := range []bool{true, true, true} {
			err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[thing], initial bool) error {
				if initial != want {
					t.Errorf("pop %d (%s): isInInitialList = %v, want %v", i, key, initial, want)
				}
				if f.HasSynced() {
					t.Errorf("pop %d (%s): HasSynced() = true while processing an initial key", i, key)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !f.HasSynced() {
			t.Error("HasSynced() = false after processing every initial key")
		}
		if got := popOne(t, f); got.Key != "late" || got.Initial {
			t.Errorf("last pop = %+v, want key late, not initial", got)
		}
	})
	t.Run("requeue keeps it false", func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		if err := f.Replace([]thing{th("a", 1)}, "1"); err != nil {
			t.Fatal(err)
		}
		err := f.Pop(t.Context(), func(string, deltafifo.Deltas[thing], bool) error { return deltafifo.ErrRequeue })
		if err != deltafifo.ErrRequeue {
			t.Fatalf("Pop() = %v, want %v", err, deltafifo.ErrRequeue)
		}
		if f.HasSynced() {
			t.Error("HasSynced() = true after the only initial key was requeued")
		}
		if got := popOne(t, f); !got.Initial {
			t.Errorf("requeued initial key popped with isInInitialList = false")
		}
		if !f.HasSynced() {
			t.Error("HasSynced() = false after processing the requeued initial key")
		}
	})
	tests := []struct {
		name string
		ops  []op
	}{
		{"Add first", []op{opAdd("a", 1), opReplace(th("b", 1))}},
		{"Update first", []op{opUpdate("a", 1), opReplace(th("b", 1))}},
		{"dropped Delete first", []op{opDelete("a", 1), opReplace(th("b", 1))}},
		{"empty Replace", []op{opReplace()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			for _, o := range tt.ops {
				o(t, f)
			}
			if !f.HasSynced() {
				t.Error("HasSynced() = false, want true without popping")
			}
		})
	}
}

// Anchor (b) 13: Resync skips keys that have pending deltas, including
// keys being processed.
func TestResyncSkipsPendingKeys(t *testing.T) {
	k := newKnown(th("a", 1), th("b", 1), th("c", 1))
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
	if err := f.Update(th("b", 2)); err != nil {
		t.Fatal(err)
	}
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	want := []popped{
		{"b", ds(updated("b", 2)), false},
		{"a", ds(synced("a", 1)), false},
		{"c", ds(synced("c", 1)), false},
	}
	diffPopped(t, "popAll() after Resync", want, popAll(t, f))

	// While a is being processed, a Resync leaves it alone: the cache may not
	// have its new state yet.
	if err := f.Update(th("a", 2)); err != nil {
		t.Fatal(err)
	}
	err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[thing], _ bool) error {
		if err := f.Resync(); err != nil {
			t.Errorf("Resync() in processor = %v", err)
		}
		k.apply(d)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want = []popped{{"b", ds(synced("b", 1)), false}, {"c", ds(synced("c", 1)), false}}
	diffPopped(t, "popAll() after Resync during processing", want, popAll(t, f))

	f2 := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	if err := f2.Resync(); err != nil || f2.Len() != 0 {
		t.Errorf("Resync() without KnownObjects = %v with %d keys queued, want nil and 0", err, f2.Len())
	}
}

// Anchor (b) 14: the transform applies to Added, Updated, Deleted and
// Replaced objects, not to inferred deletions nor to Sync deltas of Resync.
func TestTransformScope(t *testing.T) {
	k := newKnown(th("gone", 1), th("kept", 1))
	tagged := func(d deltafifo.Delta[thing]) deltafifo.Delta[thing] { d.Object.Tag = "t"; return d }
	f2 := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k, Transform: tagTransform})
	for _, o := range []op{
		opAdd("a", 1), opUpdate("a", 2), opDelete("a", 3),
		opReplace(th("r", 1), th("kept", 1)),
	} {
		o(t, f2)
	}
	want := []popped{
		{"a", ds(tagged(added("a", 1)), tagged(updated("a", 2)), tagged(deleted("a", 3))), false},
		{"r", ds(tagged(replaced("r", 1))), false},
		{"kept", ds(tagged(replaced("kept", 1))), false},
		{"gone", ds(inferred("gone", 1)), false}, // the cached object, not transformed again
	}
	diffPopped(t, "popAll() after Add, Update, Delete, Replace", want, popAll(t, f2))
	k.mu.Lock()
	k.m["kept"] = th("kept", 5)
	k.mu.Unlock()
	if err := f2.Resync(); err != nil {
		t.Fatal(err)
	}
	want = []popped{{"gone", ds(synced("gone", 1)), false}, {"kept", ds(synced("kept", 5)), false}}
	diffPopped(t, "popAll() after Resync", want, popAll(t, f2))
}

// Replace matches known keys against the list by position when they come
// in list order; keys out of order, added or missing must still be found.
func TestReplaceKnownKeysInListOrder(t *testing.T) {
	tests := []struct {
		name  string
		known []string // yielded in sorted order
		list  []string
		want  []string // inferred deletions, in known order
	}{
		{"same", []string{"a", "b", "c"}, []string{"a", "b", "c"}, nil},
		{"one missing", []string{"a", "b", "c"}, []string{"a", "c"}, []string{"b"}},
		{"one added", []string{"a", "c"}, []string{"a", "b", "c"}, nil},
		{"two added then missing", []string{"a", "d", "e", "f"}, []string{"a", "b", "c", "d", "f"}, []string{"e"}},
		{"reversed list", []string{"a", "b", "c", "d"}, []string{"d", "c", "a"}, []string{"b"}},
		{"empty list", []string{"a", "b"}, nil, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnown()
			for _, n := range tt.known {
				k.m[n] = th(n, 1)
			}
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
			list := make([]thing, len(tt.list))
			for i, n := range tt.list {
				list[i] = th(n, 2)
			}
			if err := f.Replace(list, "2"); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range popAll(t, f) {
				if d := p.Deltas[len(p.Deltas)-1]; d.Inferred {
					got = append(got, p.Key)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inferred deletions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
