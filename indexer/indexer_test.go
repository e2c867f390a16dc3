package indexer_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

var errKey = errors.New("no key")

// keyOrFail is keys.Of, except that it fails for the name "nokey".
func keyOrFail(o *obj) (string, error) {
	if o.Name == "nokey" {
		return "", errKey
	}
	return keys.Of(o)
}

// state is everything observable about an Indexer, for before/after
// comparisons.
type state struct {
	Objs    map[string]*obj
	Indexes map[string]map[string][]string
}

func stateOf(t *testing.T, x *indexer.Indexer[*obj], indexNames ...string) state {
	t.Helper()
	if err := x.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	s := state{Objs: maps.Collect(x.All()), Indexes: map[string]map[string][]string{}}
	for _, name := range indexNames {
		values, err := x.ListIndexFuncValues(name)
		if err != nil {
			t.Fatalf("ListIndexFuncValues(%q): %v", name, err)
		}
		s.Indexes[name] = map[string][]string{}
		for _, v := range values {
			keys, err := x.IndexKeys(name, v)
			if err != nil {
				t.Fatalf("IndexKeys(%q, %q): %v", name, v, err)
			}
			s.Indexes[name][v] = keys
		}
	}
	return s
}

func TestNewPanicsOnMisuse(t *testing.T) {
	tests := []struct {
		name string
		new  func()
	}{
		{"nil KeyFunc", func() { indexer.New[*obj](nil, nil) }},
		{"nil IndexFunc", func() { indexer.New(keys.Of[*obj], indexer.Indexers[*obj]{"x": nil}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			tt.new()
		})
	}
}

func TestWrites(t *testing.T) {
	a1 := &obj{Namespace: "ns", Name: "a", RV: "1", Tags: []string{"x"}}
	a2 := &obj{Namespace: "ns", Name: "a", RV: "2", Tags: []string{"y", "z"}}
	b := &obj{Namespace: "other", Name: "b", Tags: []string{"x"}}
	c := &obj{Name: "c"}
	tests := []struct {
		name  string
		write func(x *indexer.Indexer[*obj]) error
		want  state
	}{
		{
			name:  "add",
			write: func(x *indexer.Indexer[*obj]) error { return x.Add(a1) },
			want: state{Objs: map[string]*obj{"ns/a": a1}, Indexes: map[string]map[string][]string{
				"namespace": {"ns": {"ns/a"}}, "tag": {"x": {"ns/a"}},
			}},
		},
		{
			name: "update moves index values",
			write: func(x *indexer.Indexer[*obj]) error {
				return errors.Join(x.Add(a1), x.Add(b), x.Update(a2))
			},
			want: state{Objs: map[string]*obj{"ns/a": a2, "other/b": b}, Indexes: map[string]map[string][]string{
				"namespace": {"ns": {"ns/a"}, "other": {"other/b"}},
				"tag":       {"x": {"other/b"}, "y": {"ns/a"}, "z": {"ns/a"}},
			}},
		},
		{
			name: "update with many values moves only what changed",
			write: func(x *indexer.Indexer[*obj]) error {
				many := func(from, to int) []string {
					var tags []string
					for i := from; i < to; i++ {
						tags = append(tags, "t"+strconv.Itoa(i))
					}
					return tags
				}
				return errors.Join(
					x.Add(&obj{Namespace: "ns", Name: "a", Tags: many(0, 10)}),
					x.Add(b),
					x.Update(&obj{Namespace: "ns", Name: "a", Tags: many(8, 12)}),
				)
			},
			want: state{Objs: map[string]*obj{"ns/a": {Namespace: "ns", Name: "a", Tags: []string{"t8", "t9", "t10", "t11"}}, "other/b": b}, Indexes: map[string]map[string][]string{
				"namespace": {"ns": {"ns/a"}, "other": {"other/b"}},
				"tag":       {"x": {"other/b"}, "t8": {"ns/a"}, "t9": {"ns/a"}, "t10": {"ns/a"}, "t11": {"ns/a"}},
			}},
		},
		{
			name:  "update of an absent key adds it",
			write: func(x *indexer.Indexer[*obj]) error { return x.Update(c) },
			want: state{Objs: map[string]*obj{"c": c}, Indexes: map[string]map[string][]string{
				"namespace": {"": {"c"}}, "tag": {},
			}},
		},
		{
			name: "delete by key only, removing empty buckets",
			write: func(x *indexer.Indexer[*obj]) error {
				return errors.Join(x.Add(a1), x.Add(b), x.Delete(&obj{Namespace: "ns", Name: "a"}))
			},
			want: state{Objs: map[string]*obj{"other/b": b}, Indexes: map[string]map[string][]string{
				"namespace": {"other": {"other/b"}}, "tag": {"x": {"other/b"}},
			}},
		},
		{
			name:  "delete of an absent key is a no-op",
			write: func(x *indexer.Indexer[*obj]) error { return errors.Join(x.Add(b), x.Delete(a1)) },
			want: state{Objs: map[string]*obj{"other/b": b}, Indexes: map[string]map[string][]string{
				"namespace": {"other": {"other/b"}}, "tag": {"x": {"other/b"}},
			}},
		},
		{
			name: "replace rebuilds everything, later duplicate wins",
			write: func(x *indexer.Indexer[*obj]) error {
				return errors.Join(x.Add(b), x.Replace([]*obj{a1, c, a2}))
			},
			want: state{Objs: map[string]*obj{"ns/a": a2, "c": c}, Indexes: map[string]map[string][]string{
				"namespace": {"ns": {"ns/a"}, "": {"c"}}, "tag": {"y": {"ns/a"}, "z": {"ns/a"}},
			}},
		},
		{
			name:  "replace with nothing empties the store",
			write: func(x *indexer.Indexer[*obj]) error { return errors.Join(x.Add(a1), x.Replace(nil)) },
			want: state{Objs: map[string]*obj{}, Indexes: map[string]map[string][]string{
				"namespace": {}, "tag": {},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := indexer.New(keyOrFail, indexer.Indexers[*obj]{
				indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*obj], "tag": tagIndex,
			})
			if err := tt.write(x); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, stateOf(t, x, "namespace", "tag")); diff != "" {
				t.Errorf("state mismatch (-want +got):\n%s", diff)
			}
			if got, want := x.Len(), len(tt.want.Objs); got != want {
				t.Errorf("Len() = %d, want %d", got, want)
			}
		})
	}
}

// TestFailedWritesChangeNothing pins that a failing key function or IndexFunc
// leaves the store exactly as it was.
func TestFailedWritesChangeNothing(t *testing.T) {
	stored := &obj{Namespace: "ns", Name: "a", Tags: []string{"x"}}
	tests := []struct {
		name    string
		write   func(x *indexer.Indexer[*obj]) error
		wantErr error
	}{
		{"add: key fails", func(x *indexer.Indexer[*obj]) error { return x.Add(&obj{Name: "nokey"}) }, errKey},
		{"update: key fails", func(x *indexer.Indexer[*obj]) error { return x.Update(&obj{Name: "nokey"}) }, errKey},
		{"delete: key fails", func(x *indexer.Indexer[*obj]) error { return x.Delete(&obj{Name: "nokey"}) }, errKey},
		{"add: index fails", func(x *indexer.Indexer[*obj]) error { return x.Add(&obj{Name: "b", Fail: true}) }, errFail},
		{"update: index of new object fails", func(x *indexer.Indexer[*obj]) error {
			return x.Update(&obj{Namespace: "ns", Name: "a", Fail: true})
		}, errFail},
		{"put: index fails", func(x *indexer.Indexer[*obj]) error {
			_, _, err := x.Put("k", &obj{Name: "k", Fail: true})
			return err
		}, errFail},
		{"replace: key fails", func(x *indexer.Indexer[*obj]) error {
			return x.Replace([]*obj{{Name: "b"}, {Name: "nokey"}})
		}, errKey},
		{"replace: index fails", func(x *indexer.Indexer[*obj]) error {
			return x.Replace([]*obj{{Name: "b"}, {Name: "c", Fail: true}})
		}, errFail},
		{"add indexers: index fails on a stored object", func(x *indexer.Indexer[*obj]) error {
			return x.AddIndexers(indexer.Indexers[*obj]{"rv": rvIndex, "fail2": func(*obj) ([]string, error) { return nil, errFail }})
		}, errFail},
		{"add indexers: name in use", func(x *indexer.Indexer[*obj]) error {
			return x.AddIndexers(indexer.Indexers[*obj]{"rv": rvIndex, "tag": tagIndex})
		}, indexer.ErrIndexExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := indexer.New(keyOrFail, testIndexers())
			if err := x.Add(stored); err != nil {
				t.Fatal(err)
			}
			before := stateOf(t, x, "namespace", "tag", "fail")
			if err := tt.write(x); !errors.Is(err, tt.wantErr) {
				t.Fatalf("write error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(before, stateOf(t, x, "namespace", "tag", "fail")); diff != "" {
				t.Errorf("state changed by a failed write (-before +after):\n%s", diff)
			}
			if _, err := x.ListIndexFuncValues("rv"); !errors.Is(err, indexer.ErrUnknownIndex) {
				t.Errorf("index rv exists after a failed AddIndexers: %v", err)
			}
		})
	}
}

func TestPutAndDeleteKeyReturnThePreviousObject(t *testing.T) {
	v1 := &obj{Name: "a", RV: "1"}
	v2 := &obj{Name: "a", RV: "2"}
	for _, indexers := range []indexer.Indexers[*obj]{nil, testIndexers()} {
		x := indexer.New(keys.Of[*obj], indexers)
		steps := []struct {
			name    string
			do      func() (*obj, bool, error)
			old     *obj
			existed bool
		}{
			{"put new", func() (*obj, bool, error) { return x.Put("a", v1) }, nil, false},
			{"put over", func() (*obj, bool, error) { return x.Put("a", v2) }, v1, true},
			{"delete", func() (*obj, bool, error) { return x.DeleteKey("a") }, v2, true},
			{"delete again", func() (*obj, bool, error) { return x.DeleteKey("a") }, nil, false},
		}
		for _, s := range steps {
			old, existed, err := s.do()
			if err != nil || old != s.old || existed != s.existed {
				t.Errorf("%d indexes, %s = %v, %t, %v; want %v, %t, nil", len(indexers), s.name, old, existed, err, s.old, s.existed)
			}
		}
	}
}

func TestGet(t *testing.T) {
	x := indexer.New(keyOrFail, nil)
	a := &obj{Namespace: "ns", Name: "a"}
	if err := x.Add(a); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		probe   *obj
		want    *obj
		found   bool
		wantErr error
	}{
		{"stored", &obj{Namespace: "ns", Name: "a", RV: "other"}, a, true, nil},
		{"absent", &obj{Namespace: "ns", Name: "b"}, nil, false, nil},
		{"key fails", &obj{Name: "nokey"}, nil, false, errKey},
	}
	for _, tt := range tests {
		got, found, err := x.Get(tt.probe)
		if got != tt.want || found != tt.found || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: Get(%+v) = %v, %t, %v; want %v, %t, %v", tt.name, tt.probe, got, found, err, tt.want, tt.found, tt.wantErr)
		}
	}
	if got, ok := x.GetByKey("ns/a"); got != a || !ok {
		t.Errorf("GetByKey(ns/a) = %v, %t; want %v, true", got, ok, a)
	}
	if got, ok := x.GetByKey("ns/b"); got != nil || ok {
		t.Errorf("GetByKey(ns/b) = %v, %t; want nil, false", got, ok)
	}
}

func TestIndexQueries(t *testing.T) {
	x := newTestIndexer()
	objs := []*obj{
		{Namespace: "ns", Name: "a", Tags: []string{"x", "y"}},
		{Namespace: "ns", Name: "b", Tags: []string{"y"}},
		{Namespace: "other", Name: "c", Tags: []string{"z"}},
		{Namespace: "other", Name: "d"},
	}
	if err := x.Replace(objs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		query  func() ([]string, error)
		want   []string
		wantIs error
	}{
		{"Index: one value", func() ([]string, error) {
			got, err := x.Index("namespace", &obj{Namespace: "ns"})
			return names(got), err
		}, []string{"ns/a", "ns/b"}, nil},
		{"Index: union of values, each object once", func() ([]string, error) {
			got, err := x.Index("tag", &obj{Tags: []string{"x", "y", "z"}})
			return names(got), err
		}, []string{"ns/a", "ns/b", "other/c"}, nil},
		{"Index: no values", func() ([]string, error) {
			got, err := x.Index("tag", &obj{})
			return names(got), err
		}, []string{}, nil},
		{"Index: index function fails", func() ([]string, error) {
			got, err := x.Index("fail", &obj{Fail: true})
			return names(got), err
		}, []string{}, errFail},
		{"Index: unknown", func() ([]string, error) {
			got, err := x.Index("nope", &obj{})
			return names(got), err
		}, []string{}, indexer.ErrUnknownIndex},
		{"ByIndex", func() ([]string, error) {
			got, err := x.ByIndex("tag", "y")
			return names(got), err
		}, []string{"ns/a", "ns/b"}, nil},
		{"ByIndex: absent value", func() ([]string, error) {
			got, err := x.ByIndex("tag", "w")
			return names(got), err
		}, []string{}, nil},
		{"ByIndex: unknown", func() ([]string, error) {
			got, err := x.ByIndex("nope", "y")
			return names(got), err
		}, []string{}, indexer.ErrUnknownIndex},
		{"IndexKeys sorted", func() ([]string, error) { return x.IndexKeys("namespace", "other") }, []string{"other/c", "other/d"}, nil},
		{"IndexKeys: unknown", func() ([]string, error) { return x.IndexKeys("nope", "x") }, nil, indexer.ErrUnknownIndex},
		{"ListIndexFuncValues sorted", func() ([]string, error) { return x.ListIndexFuncValues("tag") }, []string{"x", "y", "z"}, nil},
		{"ListIndexFuncValues: unknown", func() ([]string, error) { return x.ListIndexFuncValues("nope") }, nil, indexer.ErrUnknownIndex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.query()
			if !errors.Is(err, tt.wantIs) {
				t.Fatalf("error = %v, want %v", err, tt.wantIs)
			}
			if diff := cmp.Diff(tt.want, got, cmpEmpty); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := x.ListIndexFuncValues("nope"); err == nil || err.Error() != `indexer: unknown index: "nope"` {
		t.Errorf("ListIndexFuncValues(nope) error = %v, want it to name the index", err)
	}
}

func TestAddIndexers(t *testing.T) {
	x := indexer.New(keys.Of[*obj], nil)
	for i := range 300 {
		if err := x.Add(&obj{Namespace: "ns" + strconv.Itoa(i%3), Name: strconv.Itoa(i), RV: strconv.Itoa(i % 2)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.AddIndexers(nil); err != nil {
		t.Errorf("AddIndexers(nil) = %v", err)
	}
	if err := x.AddIndexers(indexer.Indexers[*obj]{"nil": nil}); err == nil {
		t.Error("AddIndexers with a nil IndexFunc succeeded")
	}
	if err := x.AddIndexers(indexer.Indexers[*obj]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*obj], "rv": rvIndex}); err != nil {
		t.Fatal(err)
	}
	err := x.AddIndexers(indexer.Indexers[*obj]{"rv": rvIndex})
	if !errors.Is(err, indexer.ErrIndexExists) || err.Error() != `indexer: index already exists: "rv"` {
		t.Errorf("AddIndexers(rv) twice = %v, want %v naming rv", err, indexer.ErrIndexExists)
	}
	for _, tt := range []struct{ index, value string }{{"namespace", "ns1"}, {"rv", "0"}} {
		keys, err := x.IndexKeys(tt.index, tt.value)
		if err != nil || len(keys) != 100+50*boolInt(tt.index == "rv") {
			t.Errorf("IndexKeys(%q, %q) = %d keys, %v", tt.index, tt.value, len(keys), err)
		}
	}
	// Writes after AddIndexers maintain the new indexes.
	if err := x.Update(&obj{Namespace: "ns1", Name: "1", RV: "7"}); err != nil {
		t.Fatal(err)
	}
	if keys, _ := x.IndexKeys("rv", "7"); !slices.Equal(keys, []string{"ns1/1"}) {
		t.Errorf("IndexKeys(rv, 7) = %v, want [ns1/1]", keys)
	}
	if err := x.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestUpdateNeverIndexesTheStoredObject(t *testing.T) {
	tests := []struct {
		name     string
		old, new []string
		// late adds the counted index with AddIndexers after the first write.
		late bool
	}{
		{"same values", []string{"a", "b"}, []string{"a", "b"}, false},
		{"same values, index added later", []string{"a"}, []string{"a"}, true},
		{"no values", nil, []string{}, false},
		{"other value", []string{"a"}, []string{"b"}, false},
		{"other order", []string{"a", "b"}, []string{"b", "a"}, false},
		{"values split", []string{"ab"}, []string{"a", "b"}, false},
		{"values merged", []string{"a", "b"}, []string{"ab"}, false},
		{"value added", []string{"a"}, []string{"a", "b"}, false},
		{"value dropped", []string{"a", "b", "c"}, []string{"c", "a"}, false},
		{"duplicates", []string{"a", "a"}, []string{"b", "a", "b"}, false},
		{"duplicates collapse", []string{"a", "b"}, []string{"b", "b"}, false},
		{"all values dropped", []string{"a", "b"}, nil, false},
		{"empty value added", nil, []string{""}, false},
		{"other value, index added later", []string{"a"}, []string{"b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := &obj{Namespace: "ns", Name: "n", Tags: tt.old}
			// other shares some buckets with stored, so that leaving one
			// must not delete it.
			other := &obj{Namespace: "ns", Name: "o", Tags: []string{"a", "b"}}
			calls := 0
			count := func(o *obj) ([]string, error) {
				if o == stored {
					calls++
				}
				return o.Tags, nil
			}
			indexers := indexer.Indexers[*obj]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*obj]}
			if !tt.late {
				indexers["tag"] = count
			}
			x := indexer.New(keys.Of[*obj], indexers)
			for _, o := range []*obj{stored, other} {
				if err := x.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			if tt.late {
				if err := x.AddIndexers(indexer.Indexers[*obj]{"tag": count}); err != nil {
					t.Fatal(err)
				}
			}
			calls = 0
			if err := x.Update(&obj{Namespace: "ns", Name: "n", Tags: tt.new}); err != nil {
				t.Fatal(err)
			}
			if calls != 0 {
				t.Errorf("Update called the tag IndexFunc %d times on the stored object, want 0", calls)
			}
			got := stateOf(t, x, "tag").Indexes["tag"]
			want := map[string][]string{"a": {"ns/o"}, "b": {"ns/o"}}
			for _, v := range tt.new {
				if !slices.Contains(want[v], "ns/n") {
					want[v] = append(slices.Clone(want[v]), "ns/n")
					slices.Sort(want[v])
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tag index after Update mismatch (-want +got):\n%s", diff)
			}
			if err := x.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStoredObjectsAreNeverIndexedAgain pins that Update and Delete use the
// index values the stored object had when it was written, even if it was
// (wrongly) modified in place since: no IndexFunc runs on it again, so
// neither an error nor stale values can corrupt the indexes.
func TestStoredObjectsAreNeverIndexedAgain(t *testing.T) {
	tests := []struct {
		name  string
		write func(x *indexer.Indexer[*obj]) error
		want  map[string][]string // the tag index afterwards
	}{
		{"update", func(x *indexer.Indexer[*obj]) error {
			return x.Update(&obj{Namespace: "ns", Name: "a", Tags: []string{"z"}})
		}, map[string][]string{"z": {"ns/a"}}},
		{"delete", func(x *indexer.Indexer[*obj]) error {
			_, _, err := x.DeleteKey("ns/a")
			return err
		}, map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newTestIndexer()
			stored := &obj{Namespace: "ns", Name: "a", Tags: []string{"x"}}
			if err := x.Add(stored); err != nil {
				t.Fatal(err)
			}
			stored.Tags = []string{"y"}
			stored.Fail = true
			if err := tt.write(x); err != nil {
				t.Fatalf("write error = %v, want nil", err)
			}
			if diff := cmp.Diff(tt.want, stateOf(t, x, "tag").Indexes["tag"]); diff != "" {
				t.Errorf("tag index mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
