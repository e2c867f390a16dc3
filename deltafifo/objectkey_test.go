package deltafifo_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/keys"
)

// object is a thing as a keys.Object, so that a FIFO of *object can key
// with keys.Of, whose keys the FIFO builds on the stack. In the fuzz
// harness Namespace is empty, and keys.Of gives the name, as thingKey does.
type object struct {
	thing
	Namespace string
}

func (o *object) GetNamespace() string       { return o.Namespace }
func (o *object) GetName() string            { return o.Name }
func (o *object) GetResourceVersion() string { return "" }

// fifo is what the fuzz harness uses of a DeltaFIFO[thing]. objectFIFO
// provides it over a DeltaFIFO[*object] keyed by keys.Of.
type fifo interface {
	Add(thing) error
	Update(thing) error
	Delete(thing) error
	Replace([]thing, string) error
	Resync() error
	Pop(context.Context, func(string, deltafifo.Deltas[thing], bool) error) error
	PopBatch(context.Context, int, func([]deltafifo.Item[thing]) error) error
	Close()
	CheckInvariants() error
	Len() int
	ListKeys() []string
	HasSynced() bool
	Idle() bool
	SetKeepSlots(int)
}

// objectFIFO is a DeltaFIFO[*object] keyed by keys.Of, seen as a FIFO of
// things: objects go in as copies of the things and come out as the
// things they hold (a nil object as the zero thing). keys.Of's error for an
// empty name is reported as thingKey's, errNoName.
type objectFIFO struct {
	*deltafifo.DeltaFIFO[*object]
}

func newObjectFIFO(opts deltafifo.Options[thing]) objectFIFO {
	var o deltafifo.Options[*object]
	if opts.KnownObjects != nil {
		o.KnownObjects = knownObjects{opts.KnownObjects}
	}
	if opts.Transform != nil {
		o.Transform = func(obj *object) (*object, error) {
			t, err := opts.Transform(obj.thing)
			return &object{thing: t}, err
		}
	}
	return objectFIFO{deltafifo.New(keys.Of[*object], o)}
}

func (f objectFIFO) Add(t thing) error    { return thingErr(f.DeltaFIFO.Add(&object{thing: t})) }
func (f objectFIFO) Update(t thing) error { return thingErr(f.DeltaFIFO.Update(&object{thing: t})) }
func (f objectFIFO) Delete(t thing) error { return thingErr(f.DeltaFIFO.Delete(&object{thing: t})) }

func (f objectFIFO) Replace(list []thing, rv string) error {
	objs := make([]*object, len(list))
	for i, t := range list {
		objs[i] = &object{thing: t}
	}
	return thingErr(f.DeltaFIFO.Replace(objs, rv))
}

func (f objectFIFO) Pop(ctx context.Context, process func(string, deltafifo.Deltas[thing], bool) error) error {
	return f.DeltaFIFO.Pop(ctx, func(key string, d deltafifo.Deltas[*object], initial bool) error {
		return process(key, things(d), initial)
	})
}

func (f objectFIFO) PopBatch(ctx context.Context, n int, process func([]deltafifo.Item[thing]) error) error {
	return f.DeltaFIFO.PopBatch(ctx, n, func(items []deltafifo.Item[*object]) error {
		out := make([]deltafifo.Item[thing], len(items))
		for i, it := range items {
			out[i] = deltafifo.Item[thing]{Key: it.Key, Deltas: things(it.Deltas), InInitialList: it.InInitialList}
		}
		return process(out)
	})
}

// things returns the things that d's objects hold.
func things(d deltafifo.Deltas[*object]) deltafifo.Deltas[thing] {
	out := make(deltafifo.Deltas[thing], len(d))
	for i, d := range d {
		out[i] = deltafifo.Delta[thing]{Type: d.Type, Inferred: d.Inferred}
		if d.Object != nil {
			out[i].Object = d.Object.thing
		}
	}
	return out
}

func thingErr(err error) error {
	if errors.Is(err, keys.ErrEmptyName) {
		return fmt.Errorf("%w (%w)", errNoName, err)
	}
	return err
}

// knownObjects is a KnownObjects[thing] seen as one of objects.
type knownObjects struct {
	k deltafifo.KnownObjects[thing]
}

func (k knownObjects) GetByKey(key string) (*object, bool) {
	t, ok := k.k.GetByKey(key)
	if !ok {
		return nil, false
	}
	return &object{thing: t}, true
}

func (k knownObjects) Keys() iter.Seq[string] { return k.k.Keys() }

// TestObjectKeys checks that a FIFO keyed by keys.Of queues every object
// under the key keys.Of gives it, escaped and long keys included, finds a
// key's slot again from an object of the same name, and fails as keys.Of
// does; and that a function calling keys.Of, which the FIFO cannot
// recognise, gives the same results.
func TestObjectKeys(t *testing.T) {
	wrapped := func(o *object) (string, error) { return keys.Of(o) }
	for _, tt := range []struct {
		name    string
		keyFunc keys.Func[*object]
		stack   bool
	}{
		{"keys.Of", keys.Of[*object], true},
		{"a function calling keys.Of", wrapped, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(tt.keyFunc, deltafifo.Options[*object]{})
			if got := deltafifo.UsesObjectKeys(f); got != tt.stack {
				t.Errorf("UsesObjectKeys = %t, want %t", got, tt.stack)
			}
			objs := []*object{
				{Namespace: "ns", thing: thing{Name: "a"}},
				{thing: thing{Name: "node"}},
				{Namespace: "a/b", thing: thing{Name: "c/d"}},
				{Namespace: "%2F%", thing: thing{Name: "/x%/%25/"}},
				{Namespace: "ns", thing: thing{Name: strings.Repeat("n", 200)}},
			}
			type popped struct {
				Key   string
				Types []deltafifo.DeltaType
			}
			var want []popped
			for _, o := range objs {
				newer := &object{Namespace: o.Namespace, thing: thing{Name: o.Name, Version: 2}}
				if err := f.Add(o); err != nil {
					t.Fatal(err)
				}
				if err := f.Update(newer); err != nil {
					t.Fatal(err)
				}
				key, _ := keys.Of(o)
				want = append(want, popped{key, []deltafifo.DeltaType{deltafifo.Added, deltafifo.Updated}})
			}
			if err := f.Add(&object{Namespace: "ns"}); !errors.Is(err, keys.ErrEmptyName) {
				t.Errorf("Add of an object without a name = %v, want %v", err, keys.ErrEmptyName)
			}
			var got []popped
			for f.Len() > 0 {
				err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[*object], _ bool) error {
					p := popped{Key: key}
					for _, d := range d {
						p.Types = append(p.Types, d.Type)
					}
					got = append(got, p)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("popped mismatch (-want +got):\n%s", diff)
			}
			// Deleting an object whose key has only an idle slot left and
			// that no cache knows deletes nothing.
			if err := f.Delete(objs[0]); err != nil || f.Len() != 0 {
				t.Errorf("Delete of a processed key = %v, Len() = %d; want nil, 0", err, f.Len())
			}
			if err := f.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestObjectKeysAllocate checks that a FIFO keyed by keys.Of allocates
// nothing for a delta whose key has a slot: an update of a queued key, or
// the next delta of a processed key whose slot is idle.
func TestObjectKeysAllocate(t *testing.T) {
	f := deltafifo.New(keys.Of[*object], deltafifo.Options[*object]{})
	objs := make([]*object, 16)
	for i := range objs {
		objs[i] = &object{Namespace: "ns", thing: thing{Name: fmt.Sprintf("o%d", i)}}
	}
	process := func([]deltafifo.Item[*object]) error { return nil }
	cycle := func() {
		for _, o := range objs {
			if err := f.Add(o); err != nil {
				t.Fatal(err)
			}
			if err := f.Update(o); err != nil {
				t.Fatal(err)
			}
		}
		for f.Len() > 0 {
			if err := f.PopBatch(t.Context(), 8, process); err != nil {
				t.Fatal(err)
			}
		}
	}
	cycle()
	if allocs := testing.AllocsPerRun(10, cycle); allocs != 0 {
		t.Errorf("a warm Add+Update+PopBatch cycle of %d known keys allocates %v times, want 0", len(objs), allocs)
	}
}
