package deltafifo_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
)

// op is one step of a scripted test.
type op func(t *testing.T, f *deltafifo.DeltaFIFO[thing])

func opAdd(name string, v int) op {
	return func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
		t.Helper()
		if err := f.Add(thing{Name: name, Version: v}); err != nil {
			t.Fatalf("Add(%s, %d) = %v", name, v, err)
		}
	}
}

func opUpdate(name string, v int) op {
	return func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
		t.Helper()
		if err := f.Update(thing{Name: name, Version: v}); err != nil {
			t.Fatalf("Update(%s, %d) = %v", name, v, err)
		}
	}
}

func opDelete(name string, v int) op {
	return func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
		t.Helper()
		if err := f.Delete(thing{Name: name, Version: v}); err != nil {
			t.Fatalf("Delete(%s, %d) = %v", name, v, err)
		}
	}
}

func opReplace(list ...thing) op {
	return func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
		t.Helper()
		if err := f.Replace(list, "7"); err != nil {
			t.Fatalf("Replace(%v) = %v", list, err)
		}
	}
}

func opResync() op {
	return func(t *testing.T, f *deltafifo.DeltaFIFO[thing]) {
		t.Helper()
		if err := f.Resync(); err != nil {
			t.Fatalf("Resync() = %v", err)
		}
	}
}

func th(name string, v int) thing { return thing{Name: name, Version: v} }

// runScript runs ops on a new FIFO and returns everything popped after.
func runScript(t *testing.T, opts deltafifo.Options[thing], ops []op) []popped {
	t.Helper()
	f := deltafifo.New(thingKey, opts)
	for _, o := range ops {
		o(t, f)
		mustCheck(t, f)
	}
	got := popAll(t, f)
	mustCheck(t, f)
	return got
}

func TestScripts(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		known  []thing
		ops    []op
		want   []popped
	}{
		{
			name:   "keys in order of first delta",
			reason: "a key keeps the queue position of its oldest pending delta",
			ops:    []op{opAdd("a", 1), opAdd("b", 1), opUpdate("a", 2), opAdd("c", 1), opUpdate("b", 2)},
			want: []popped{
				{"a", ds(added("a", 1), updated("a", 2)), false},
				{"b", ds(added("b", 1), updated("b", 2)), false},
				{"c", ds(added("c", 1)), false},
			},
		},
		{
			name:   "updates are never merged",
			reason: "only deletions collapse",
			ops:    []op{opUpdate("a", 1), opUpdate("a", 1), opUpdate("a", 2)},
			want:   []popped{{"a", ds(updated("a", 1), updated("a", 1), updated("a", 2)), false}},
		},
		{
			name: "delete after add is kept",
			ops:  []op{opAdd("a", 1), opDelete("a", 2)},
			want: []popped{{"a", ds(added("a", 1), deleted("a", 2)), false}},
		},
		{
			name:  "delete of a known key is kept",
			known: []thing{th("a", 1)},
			ops:   []op{opDelete("a", 2)},
			want:  []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name:   "observed deletion replaces an inferred one",
			reason: "Replace inferred the deletion of a; the watch then reported it",
			ops:    []op{opAdd("a", 1), opReplace(), opDelete("a", 3)},
			want:   []popped{{"a", ds(added("a", 1), deleted("a", 3)), false}},
		},
		{
			name:  "resync of a known key",
			known: []thing{th("a", 1), th("b", 1)},
			ops:   []op{opResync()},
			want:  []popped{{"a", ds(synced("a", 1)), false}, {"b", ds(synced("b", 1)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts deltafifo.Options[thing]
			if tt.known != nil {
				opts.KnownObjects = newKnown(tt.known...)
			}
			diffPopped(t, "popAll()", tt.want, runScript(t, opts, tt.ops))
		})
	}
}

func TestKeyErrorQueuesNothing(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: newKnown(th("a", 1))})
	calls := []struct {
		name string
		call func() error
	}{
		{"Add", func() error { return f.Add(thing{}) }},
		{"Update", func() error { return f.Update(thing{}) }},
		{"Delete", func() error { return f.Delete(thing{}) }},
		{"Replace", func() error { return f.Replace([]thing{th("b", 1), {}}, "1") }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, errNoName) {
			t.Errorf("%s(no name) = %v, want an error wrapping %v", c.name, err, errNoName)
		}
	}
	if n := f.Len(); n != 0 {
		t.Errorf("Len() = %d after failing calls, want 0 (keys %q)", n, f.ListKeys())
	}
	if f.HasSynced() {
		t.Error("HasSynced() = true after only failing calls, want false")
	}
	mustCheck(t, f)
}

func TestTransformError(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{Transform: tagTransform})
	if err := f.Add(th("a", -1)); !errors.Is(err, errTransform) {
		t.Errorf("Add(failing transform) = %v, want an error wrapping %v", err, errTransform)
	}
	if err := f.Replace([]thing{th("a", 1), th("b", -1)}, "1"); !errors.Is(err, errTransform) {
		t.Errorf("Replace(failing transform) = %v, want an error wrapping %v", err, errTransform)
	}
	if keys := f.ListKeys(); len(keys) != 0 {
		t.Errorf("ListKeys() = %q after failing transforms, want none", keys)
	}
}

func TestClosedRejectsChanges(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: newKnown(th("k", 1))})
	if err := f.Add(th("a", 1)); err != nil {
		t.Fatalf("Add() = %v", err)
	}
	f.Close()
	f.Close() // idempotent
	calls := []struct {
		name string
		call func() error
	}{
		{"Add", func() error { return f.Add(th("b", 1)) }},
		{"Update", func() error { return f.Update(th("a", 2)) }},
		{"Delete", func() error { return f.Delete(th("a", 3)) }},
		{"Replace", func() error { return f.Replace(nil, "1") }},
		{"Resync", f.Resync},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, deltafifo.ErrClosed) {
			t.Errorf("%s after Close = %v, want %v", c.name, err, deltafifo.ErrClosed)
		}
	}
	diffPopped(t, "popAll() after Close", []popped{{"a", ds(added("a", 1)), false}}, popAll(t, f))
	err := f.Pop(t.Context(), func(string, deltafifo.Deltas[thing], bool) error {
		t.Error("processor called on a closed, empty FIFO")
		return nil
	})
	if !errors.Is(err, deltafifo.ErrClosed) {
		t.Errorf("Pop() on a closed, empty FIFO = %v, want %v", err, deltafifo.ErrClosed)
	}
}

func TestListKeysAndLen(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	for _, n := range []string{"c", "a", "b", "a"} {
		if err := f.Add(th(n, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"c", "a", "b"}, f.ListKeys()); diff != "" {
		t.Errorf("ListKeys() mismatch (-want +got):\n%s", diff)
	}
	if n := f.Len(); n != 3 {
		t.Errorf("Len() = %d, want 3", n)
	}
	popOne(t, f)
	if diff := cmp.Diff([]string{"a", "b"}, f.ListKeys()); diff != "" {
		t.Errorf("ListKeys() after Pop mismatch (-want +got):\n%s", diff)
	}
}

func TestDeltaTypeString(t *testing.T) {
	got := make([]string, 0, 6)
	for _, d := range []deltafifo.DeltaType{deltafifo.Added, deltafifo.Updated, deltafifo.Deleted, deltafifo.Replaced, deltafifo.Sync, 0} {
		got = append(got, d.String())
	}
	want := []string{"Added", "Updated", "Deleted", "Replaced", "Sync", "DeltaType(invalid)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DeltaType.String() mismatch (-want +got):\n%s", diff)
	}
}

func TestNewPanicsOnNilKeyFunc(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(nil, ...) did not panic")
		}
	}()
	deltafifo.New[thing](nil, deltafifo.Options[thing]{})
}
