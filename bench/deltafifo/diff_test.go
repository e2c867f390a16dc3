package deltafifo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/diffcheck"
	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
)

// A small pool of objects, so that sequences revisit keys often.
var pool = fixture.Pool(10, 3)

type fifoOpKind uint8

const (
	fAdd fifoOpKind = iota
	fUpdate
	fDelete
	fReplace
	fResync
	fPop
)

type fifoOp struct {
	kind fifoOpKind
	objs []*corev1.ConfigMap // one, or the list of a Replace
}

func (o fifoOp) String() string {
	names := make([]string, len(o.objs))
	for i, cm := range o.objs {
		names[i] = fixture.Describe(cm)
	}
	kind := [...]string{"Add", "Update", "Delete", "Replace", "Resync", "Pop"}[o.kind]
	return kind + "(" + strings.Join(names, ", ") + ")"
}

func decodeFIFOOps(data []byte) []fifoOp {
	d := diffcheck.NewDecoder(data)
	pick := func() *corev1.ConfigMap { return pool[d.Intn(len(pool))][d.Intn(len(pool[0]))] }
	var ops []fifoOp
	for d.More() {
		switch r := d.Intn(64); {
		case r < 14:
			ops = append(ops, fifoOp{fAdd, []*corev1.ConfigMap{pick()}})
		case r < 26:
			ops = append(ops, fifoOp{fUpdate, []*corev1.ConfigMap{pick()}})
		case r < 36:
			ops = append(ops, fifoOp{fDelete, []*corev1.ConfigMap{pick()}})
		case r < 40:
			list := make([]*corev1.ConfigMap, d.Intn(len(pool)+2))
			for i := range list {
				list[i] = pick()
			}
			ops = append(ops, fifoOp{fReplace, list})
		case r < 42:
			ops = append(ops, fifoOp{kind: fResync})
		default:
			ops = append(ops, fifoOp{kind: fPop})
		}
	}
	return ops
}

// fifoPair is the two FIFOs under test, each with its own cache as
// KnownObjects, which popped deltas are applied to as an informer would.
// The client-go FIFO is closed from the start: its Pop then returns
// ErrFIFOClosed instead of blocking when nothing is queued, and nothing
// else in it looks at the closed flag.
type fifoPair struct {
	tc      *deltafifo.DeltaFIFO[*corev1.ConfigMap]
	tcStore *indexer.Indexer[*corev1.ConfigMap]
	cg      *cache.DeltaFIFO
	cgStore cache.Indexer
	// queued models which keys have deltas waiting, to predict the keys
	// that Replace and Resync queue in no particular order.
	queued map[string]bool
	// groups are sets of keys queued together in an unspecified order,
	// oldest first: client-go walks a map when Replace infers deletions of
	// cached keys and when Resync queues Syncs.
	groups []map[string]bool
}

func newFIFOPair() *fifoPair {
	p := &fifoPair{
		tcStore: newTypedStore(),
		cgStore: newClientGoStore(),
		queued:  map[string]bool{},
	}
	p.tc = newTypedFIFO(p.tcStore)
	p.cg = newClientGoFIFO(p.cgStore)
	p.cg.Close()
	return p
}

func key(cm *corev1.ConfigMap) string { return cm.Namespace + "/" + cm.Name }

// popped is one key's deltas in a form both sides map to.
type popped struct {
	key     string
	initial bool
	deltas  []string
}

func (p popped) String() string {
	return fmt.Sprintf("%s initial=%v %v", p.key, p.initial, p.deltas)
}

func describeDelta(t string, inferred bool, obj *corev1.ConfigMap) string {
	if inferred {
		t += "(inferred)"
	}
	return t + " " + fixture.Describe(obj)
}

// popTyped pops one key from typedcache's FIFO and applies it to its cache.
func (p *fifoPair) popTyped() (popped, error) {
	var out popped
	err := p.tc.Pop(context.Background(), func(k string, d deltafifo.Deltas[*corev1.ConfigMap], initial bool) error {
		out = popped{key: k, initial: initial}
		for _, dl := range d {
			out.deltas = append(out.deltas, describeDelta(dl.Type.String(), dl.Inferred, dl.Object))
			var err error
			if dl.Type == deltafifo.Deleted {
				_, _, err = p.tcStore.DeleteKey(k)
			} else {
				err = p.tcStore.Update(dl.Object)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// popClientGo pops one key from client-go's FIFO and applies it to its
// cache; ok is false when nothing was queued.
func (p *fifoPair) popClientGo() (out popped, ok bool, err error) {
	_, err = p.cg.Pop(func(obj any, initial bool) error {
		d := obj.(cache.Deltas)
		for _, dl := range d {
			inferred := false
			cm, _ := dl.Object.(*corev1.ConfigMap)
			if u, isDFSU := dl.Object.(cache.DeletedFinalStateUnknown); isDFSU {
				inferred = true
				cm, _ = u.Obj.(*corev1.ConfigMap)
				out.key = u.Key
			} else {
				out.key = key(cm)
			}
			out.deltas = append(out.deltas, describeDelta(string(dl.Type), inferred, cm))
			var err error
			if dl.Type == cache.Deleted {
				err = p.cgStore.Delete(dl.Object)
			} else {
				err = p.cgStore.Update(dl.Object)
			}
			if err != nil {
				return err
			}
		}
		out.initial = initial
		return nil
	})
	if errors.Is(err, cache.ErrFIFOClosed) {
		return popped{}, false, nil
	}
	return out, err == nil, err
}

// pop pops the next key from both and compares; when the key belongs to a
// group queued in no particular order, it pops the whole group from both
// and compares them as sets.
func (p *fifoPair) pop() string {
	first, ok, err := p.popClientGo()
	if err != nil {
		return fmt.Sprintf("client-go Pop: %v", err)
	}
	if !ok {
		if n := p.tc.Len(); n != 0 {
			return fmt.Sprintf("client-go FIFO is empty; typedcache Len = %d", n)
		}
		return ""
	}
	want := []popped{first}
	if i := slices.IndexFunc(p.groups, func(g map[string]bool) bool { return g[first.key] }); i >= 0 {
		for range len(p.groups[i]) - 1 {
			next, ok, err := p.popClientGo()
			if !ok || err != nil {
				return fmt.Sprintf("client-go Pop in a group: %v, %v", ok, err)
			}
			want = append(want, next)
		}
		p.groups = slices.Delete(p.groups, i, i+1)
	}
	var got []popped
	for range want {
		g, err := p.popTyped()
		if err != nil {
			return fmt.Sprintf("typedcache Pop: %v", err)
		}
		got = append(got, g)
	}
	for _, w := range want {
		delete(p.queued, w.key)
		for _, g := range p.groups {
			delete(g, w.key)
		}
	}
	byKey := func(a, b popped) int { return strings.Compare(a.key, b.key) }
	if len(want) > 1 {
		slices.SortFunc(want, byKey)
		slices.SortFunc(got, byKey)
	}
	if !slices.EqualFunc(want, got, func(a, b popped) bool {
		return a.key == b.key && a.initial == b.initial && slices.Equal(a.deltas, b.deltas)
	}) {
		return fmt.Sprintf("popped:\n  client-go  %v\n  typedcache %v", want, got)
	}
	return ""
}

// runFIFOOps applies ops to both FIFOs, pops everything at the end, and
// returns the first divergence in popped keys, deltas (type, object
// identity, inferred deletions against DeletedFinalStateUnknown) or
// HasSynced. Two documented differences shape the test: delta type names
// differ in spelling only (compared through a mapping), and a key queued
// by client-go in map order is compared as part of its group.
func runFIFOOps(_ *testing.T, ops []fifoOp) string {
	p := newFIFOPair()
	defer p.tc.Close()
	for i, op := range ops {
		at := func(msg string) string { return fmt.Sprintf("op %d %v: %s", i, op, msg) }
		var tcErr, cgErr error
		switch op.kind {
		case fAdd:
			tcErr, cgErr = p.tc.Add(op.objs[0]), p.cg.Add(op.objs[0])
			p.queued[key(op.objs[0])] = true
		case fUpdate:
			tcErr, cgErr = p.tc.Update(op.objs[0]), p.cg.Update(op.objs[0])
			p.queued[key(op.objs[0])] = true
		case fDelete:
			k := key(op.objs[0])
			if _, known, _ := p.cgStore.GetByKey(k); known || p.queued[k] {
				p.queued[k] = true
			}
			tcErr, cgErr = p.tc.Delete(op.objs[0]), p.cg.Delete(op.objs[0])
		case fReplace:
			listed := map[string]bool{}
			list := make([]any, len(op.objs))
			for j, cm := range op.objs {
				listed[key(cm)] = true
				list[j] = cm
			}
			p.group(func(k string) bool { return !listed[k] })
			maps.Copy(p.queued, listed)
			tcErr, cgErr = p.tc.Replace(slices.Clone(op.objs), "1"), p.cg.Replace(list, "1")
		case fResync:
			p.group(func(string) bool { return true })
			tcErr, cgErr = p.tc.Resync(), p.cg.Resync()
		case fPop:
			if msg := p.pop(); msg != "" {
				return at(msg)
			}
		}
		if tcErr != nil || cgErr != nil {
			return at(fmt.Sprintf("typedcache error %v, client-go error %v", tcErr, cgErr))
		}
		if t, c := p.tc.HasSynced(), p.cg.HasSynced(); t != c {
			return at(fmt.Sprintf("HasSynced: client-go %v, typedcache %v", c, t))
		}
	}
	for range len(pool) + 1 {
		if msg := p.pop(); msg != "" {
			return "draining at the end: " + msg
		}
	}
	if n := p.tc.Len(); n != 0 {
		return fmt.Sprintf("after draining, typedcache Len = %d", n)
	}
	return ""
}

// group records the cached keys that are not queued and pass include as a
// group queued in no particular order, and marks them queued.
func (p *fifoPair) group(include func(string) bool) {
	g := map[string]bool{}
	for _, k := range p.cgStore.ListKeys() {
		if !p.queued[k] && include(k) {
			g[k] = true
			p.queued[k] = true
		}
	}
	if len(g) > 1 {
		p.groups = append(p.groups, g)
	}
}

func TestDeltaFIFODifferential(t *testing.T) {
	n := diffcheck.Seeded(t, diffcheck.Config{Sequences: 300, Length: 1000}, decodeFIFOOps, runFIFOOps)
	if n < 100_000 {
		t.Errorf("ran %d operations; want at least 100000", n)
	}
}

func FuzzDeltaFIFODifferential(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(diffcheck.Bytes(seed, 300))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		diffcheck.Fuzz(t, data, decodeFIFOOps, runFIFOOps)
	})
}
