package indexer_test

import (
	"errors"
	"iter"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// fuzzOps decodes the fuzzer's bytes.
type fuzzOps struct {
	data []byte
	rv   int
}

func (f *fuzzOps) next() byte {
	if len(f.data) == 0 {
		return 0
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b
}

var (
	fuzzNamespaces = []string{"", "a", "b", "a/b", "%"}
	fuzzNames      = []string{"", "x", "y", "z/1", "%2F", "w", "v"}
	// fuzzIndexers are the candidates for AddIndexers; "tag" already
	// exists.
	fuzzIndexers = []string{"rv", "tag2", "fail2", "tag"}
)

func (f *fuzzOps) object() *obj {
	f.rv++
	o := &obj{
		Namespace: fuzzNamespaces[int(f.next())%len(fuzzNamespaces)],
		Name:      f.name(),
		RV:        strconv.Itoa(f.rv),
	}
	b := f.next()
	for i := range 3 {
		if b&(1<<i) != 0 {
			o.Tags = append(o.Tags, "t"+strconv.Itoa(i))
		}
	}
	if b&8 != 0 && len(o.Tags) > 0 {
		o.Tags = append(o.Tags, o.Tags[0]) // a duplicate value
	}
	o.Fail = b&0x30 == 0x30
	return o
}

// name returns one of the awkward fuzzNames or, half of the time, one of
// 128 plain names, so that stores grow past one block.
func (f *fuzzOps) name() string {
	b := f.next()
	if b&1 == 0 {
		return fuzzNames[int(b>>1)%len(fuzzNames)]
	}
	return "n" + strconv.Itoa(int(b>>1))
}

func (f *fuzzOps) indexers() indexer.Indexers[*obj] {
	b := f.next()
	add := indexer.Indexers[*obj]{}
	for i, name := range fuzzIndexers {
		if b&(1<<i) == 0 {
			continue
		}
		switch name {
		case "rv":
			add[name] = rvIndex
		case "fail2":
			add[name] = failIndex
		default:
			add[name] = tagIndex
		}
	}
	return add
}

// pending is an iteration started with iter.Pull and drained later, with
// the contents the store had when it started.
type pending struct {
	next func() (string, *obj, bool)
	stop func()
	seen map[string]*obj
	want map[string]*obj
}

func (p *pending) drain(t *testing.T) {
	t.Helper()
	for {
		k, o, ok := p.next()
		if !ok {
			break
		}
		p.seen[k] = o
	}
	p.stop()
	if !maps.Equal(p.want, p.seen) {
		t.Fatalf("All() over a snapshot saw %v, want %v", p.seen, p.want)
	}
}

func FuzzIndexer(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0, 1, 1, 4, 5, 2, 1, 2, 3})
	f.Add([]byte{7, 0, 1, 1, 1, 0, 2, 2, 2, 7, 2, 1, 1, 0})
	f.Add([]byte{5, 3, 1, 1, 7, 2, 2, 0, 3, 3, 1, 6, 0x0f, 1, 3, 3, 0x38})
	f.Add([]byte{0, 1, 1, 7, 0, 1, 2, 7, 4, 1, 1, 6, 1, 5, 0})
	f.Add([]byte{5, 0, 255, 8, 5, 0, 200, 7, 1, 8, 8, 2, 1, 3, 7, 0, 8, 7, 0, 8})
	f.Add([]byte{5, 1, 1, 3, 7, 190, 8, 3, 0, 3, 0x1f, 2, 0, 6, 7, 8, 7, 3, 6, 0x0f, 8})
	f.Add([]byte{5, 3, 0, 1, 1, 1, 3, 1, 2, 5, 1, 255, 8, 7, 0, 1, 1, 3, 1, 7, 8, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := &fuzzOps{data: data}
		x := newTestIndexer()
		m := newModel(testIndexers())
		var iterating *pending
		for step := 0; len(ops.data) > 0; step++ {
			switch op := ops.next() % 9; op {
			case 0, 1:
				o := ops.object()
				key, keyErr := keys.Of(o)
				fails := keyErr != nil
				if !fails {
					_, _, fails = m.put(key, o)
				}
				write := x.Add
				if op == 1 {
					write = x.Update
				}
				if err := write(o); (err != nil) != fails {
					t.Fatalf("step %d: Add(%+v) = %v, want failure %t", step, o, err, fails)
				}
			case 2:
				o := ops.object()
				key, keyErr := keys.Of(o)
				fails := keyErr != nil
				if !fails {
					_, _, fails = m.deleteKey(key)
				}
				if err := x.Delete(o); (err != nil) != fails {
					t.Fatalf("step %d: Delete(%+v) = %v, want failure %t", step, o, err, fails)
				}
			case 3:
				o := ops.object()
				key, err := keys.Of(o)
				if err != nil {
					continue
				}
				wantOld, wantExisted, fails := m.put(key, o)
				old, existed, err := x.Put(key, o)
				if (err != nil) != fails || old != wantOld || existed != wantExisted {
					t.Fatalf("step %d: Put(%q) = %v, %t, %v; want %v, %t, failure %t", step, key, old, existed, err, wantOld, wantExisted, fails)
				}
			case 4:
				key := keys.Join(fuzzNamespaces[int(ops.next())%len(fuzzNamespaces)], ops.name())
				wantOld, wantExisted, fails := m.deleteKey(key)
				old, existed, err := x.DeleteKey(key)
				if (err != nil) != fails || old != wantOld || existed != wantExisted {
					t.Fatalf("step %d: DeleteKey(%q) = %v, %t, %v; want %v, %t, failure %t", step, key, old, existed, err, wantOld, wantExisted, fails)
				}
			case 5:
				// A few decoded objects, then up to 255 plain ones.
				objs := make([]*obj, ops.next()%4, 256)
				for i := range objs {
					objs[i] = ops.object()
				}
				for i := range int(ops.next()) {
					ops.rv++
					objs = append(objs, &obj{Namespace: "bulk", Name: strconv.Itoa(i), RV: strconv.Itoa(ops.rv)})
				}
				fails := m.replace(objs)
				if err := x.Replace(objs); (err != nil) != fails {
					t.Fatalf("step %d: Replace(%d objects) = %v, want failure %t", step, len(objs), err, fails)
				}
			case 6:
				add := ops.indexers()
				fails := m.addIndexers(add)
				err := x.AddIndexers(add)
				if (err != nil) != fails {
					t.Fatalf("step %d: AddIndexers(%v) = %v, want failure %t", step, slices.Sorted(maps.Keys(add)), err, fails)
				}
				if _, dup := add["tag"]; dup && !errors.Is(err, indexer.ErrIndexExists) {
					t.Fatalf("step %d: AddIndexers(tag) = %v, want %v", step, err, indexer.ErrIndexExists)
				}
			case 7:
				// Delete every k-th stored key, shrinking large stores.
				every := int(ops.next()%4) + 1
				for i, key := range slices.Sorted(maps.Keys(m.objs)) {
					if i%every != 0 {
						continue
					}
					_, _, fails := m.deleteKey(key)
					if _, _, err := x.DeleteKey(key); (err != nil) != fails {
						t.Fatalf("step %d: DeleteKey(%q) = %v, want failure %t", step, key, err, fails)
					}
				}
			case 8:
				if iterating != nil {
					iterating.drain(t)
					iterating = nil
					continue
				}
				next, stop := iter.Pull2(x.All())
				iterating = &pending{next: next, stop: stop, seen: map[string]*obj{}, want: maps.Clone(m.objs)}
				if k, o, ok := next(); ok {
					iterating.seen[k] = o
				}
			}
			checkAgainstModel(t, step, x, m)
		}
		if iterating != nil {
			iterating.drain(t)
		}
	})
}

// checkAgainstModel compares everything x can be asked with m.
func checkAgainstModel(t *testing.T, step int, x *indexer.Indexer[*obj], m *model) {
	t.Helper()
	if err := x.CheckInvariants(); err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	if got := maps.Collect(x.All()); !maps.Equal(got, m.objs) {
		t.Fatalf("step %d: All() = %v, want %v", step, got, m.objs)
	}
	if got, want := x.Len(), len(m.objs); got != want {
		t.Fatalf("step %d: Len() = %d, want %d", step, got, want)
	}
	wantKeys := slices.Sorted(maps.Keys(m.objs))
	if diff := diffStrings(wantKeys, slices.Sorted(x.Keys()), cmpEmpty); diff != "" {
		t.Fatalf("step %d: Keys() mismatch (-want +got):\n%s", step, diff)
	}
	if diff := diffStrings(wantKeys, sorted(x.ListKeys()), cmpEmpty); diff != "" {
		t.Fatalf("step %d: ListKeys() mismatch (-want +got):\n%s", step, diff)
	}
	if diff := diffStrings(names(slices.Collect(maps.Values(m.objs))), names(x.List()), cmpEmpty); diff != "" {
		t.Fatalf("step %d: List() mismatch (-want +got):\n%s", step, diff)
	}
	for _, key := range wantKeys {
		if got, ok := x.GetByKey(key); !ok || got != m.objs[key] {
			t.Fatalf("step %d: GetByKey(%q) = %v, %t; want %v", step, key, got, ok, m.objs[key])
		}
	}
	for name := range m.indexers {
		want := m.index(name)
		values, err := x.ListIndexFuncValues(name)
		if err != nil {
			t.Fatalf("step %d: ListIndexFuncValues(%q): %v", step, name, err)
		}
		if diff := diffStrings(slices.Sorted(maps.Keys(want)), values, cmpEmpty); diff != "" {
			t.Fatalf("step %d: ListIndexFuncValues(%q) mismatch (-want +got):\n%s", step, name, diff)
		}
		for _, v := range append(values, "absent") {
			keys, err := x.IndexKeys(name, v)
			if err != nil {
				t.Fatalf("step %d: IndexKeys(%q, %q): %v", step, name, v, err)
			}
			if diff := diffStrings(want[v], keys, cmpEmpty); diff != "" {
				t.Fatalf("step %d: IndexKeys(%q, %q) mismatch (-want +got):\n%s", step, name, v, diff)
			}
			objs, err := x.ByIndex(name, v)
			if err != nil {
				t.Fatalf("step %d: ByIndex(%q, %q): %v", step, name, v, err)
			}
			var wantObjs []*obj
			for _, k := range want[v] {
				wantObjs = append(wantObjs, m.objs[k])
			}
			if diff := diffStrings(names(wantObjs), names(objs), cmpEmpty); diff != "" {
				t.Fatalf("step %d: ByIndex(%q, %q) mismatch (-want +got):\n%s", step, name, v, diff)
			}
		}
	}
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// diffStrings is cmp.Diff for string slices, fast when they are equal,
// which is what the fuzzer spends its time on.
func diffStrings(want, got []string, opts ...cmp.Option) string {
	if slices.Equal(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}

// cmpEmpty treats nil and empty slices as equal.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())
