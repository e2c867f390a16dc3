package indexer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/diffcheck"
	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// The differential test works on a small pool of objects, so that
// sequences revisit keys and index buckets often: poolObjects names in 3
// namespaces, each in poolVariants states with different labels.
const (
	poolObjects  = 12
	poolVariants = 4
)

// labelsIndex has one value per label ("key=value"), and teamIndex none
// for objects without a "team" label: multi-valued and empty index values.
const (
	labelsIndex = "labels"
	teamIndex   = "team"
)

var pool = fixture.Pool(poolObjects, poolVariants)

func labelValues(cm *corev1.ConfigMap) []string {
	var vs []string
	for k, v := range cm.Labels {
		vs = append(vs, k+"="+v)
	}
	return vs
}

func teamValues(cm *corev1.ConfigMap) []string {
	if t, ok := cm.Labels["team"]; ok {
		return []string{t}
	}
	return nil
}

func newTypedDiff() *indexer.Indexer[*corev1.ConfigMap] {
	return indexer.New(keys.Of[*corev1.ConfigMap], indexer.Indexers[*corev1.ConfigMap]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*corev1.ConfigMap],
		labelsIndex:            func(cm *corev1.ConfigMap) ([]string, error) { return labelValues(cm), nil },
		teamIndex:              func(cm *corev1.ConfigMap) ([]string, error) { return teamValues(cm), nil },
	})
}

func newClientGoDiff() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		labelsIndex:          func(obj any) ([]string, error) { return labelValues(obj.(*corev1.ConfigMap)), nil },
		teamIndex:            func(obj any) ([]string, error) { return teamValues(obj.(*corev1.ConfigMap)), nil },
	})
}

var indexNames = []string{cache.NamespaceIndex, labelsIndex, teamIndex}

type indexerOpKind uint8

const (
	ixAdd indexerOpKind = iota
	ixUpdate
	ixDelete
	ixReplace
)

type indexerOp struct {
	kind indexerOpKind
	objs []*corev1.ConfigMap // one, or the list of a Replace
}

func (o indexerOp) String() string {
	names := make([]string, len(o.objs))
	for i, cm := range o.objs {
		names[i] = fixture.Describe(cm)
	}
	kind := [...]string{"Add", "Update", "Delete", "Replace"}[o.kind]
	return kind + "(" + strings.Join(names, ", ") + ")"
}

func decodeIndexerOps(data []byte) []indexerOp {
	d := diffcheck.NewDecoder(data)
	pick := func() *corev1.ConfigMap { return pool[d.Intn(poolObjects)][d.Intn(poolVariants)] }
	var ops []indexerOp
	for d.More() {
		switch r := d.Intn(32); {
		case r < 12:
			ops = append(ops, indexerOp{ixAdd, []*corev1.ConfigMap{pick()}})
		case r < 22:
			ops = append(ops, indexerOp{ixUpdate, []*corev1.ConfigMap{pick()}})
		case r < 31:
			ops = append(ops, indexerOp{ixDelete, []*corev1.ConfigMap{pick()}})
		default:
			list := make([]*corev1.ConfigMap, d.Intn(poolObjects+2))
			for i := range list {
				list[i] = pick()
			}
			ops = append(ops, indexerOp{ixReplace, list})
		}
	}
	return ops
}

// runIndexerOps applies ops to both indexers and compares, after each op,
// the stored objects (by identity) and, for every index, its values, the
// keys and objects under each value, and Index for every pool object.
// There are no intended differences on this path; IndexKeys and
// ListIndexFuncValues results are sorted on the client-go side before
// comparing, since typedcache documents that it sorts them and client-go
// does not.
func runIndexerOps(_ *testing.T, ops []indexerOp) string {
	tc, cg := newTypedDiff(), newClientGoDiff()
	for i, op := range ops {
		var tcErr, cgErr error
		switch op.kind {
		case ixAdd:
			tcErr, cgErr = tc.Add(op.objs[0]), cg.Add(op.objs[0])
		case ixUpdate:
			tcErr, cgErr = tc.Update(op.objs[0]), cg.Update(op.objs[0])
		case ixDelete:
			tcErr, cgErr = tc.Delete(op.objs[0]), cg.Delete(op.objs[0])
		case ixReplace:
			list := make([]any, len(op.objs))
			for j, cm := range op.objs {
				list[j] = cm
			}
			tcErr, cgErr = tc.Replace(slices.Clone(op.objs)), cg.Replace(list, "")
		}
		if tcErr != nil || cgErr != nil {
			return fmt.Sprintf("op %d %v: typedcache error %v, client-go error %v", i, op, tcErr, cgErr)
		}
		if msg := compareIndexers(tc, cg, pool[i%poolObjects][i%poolVariants], i%8 == 0); msg != "" {
			return fmt.Sprintf("op %d %v: %s", i, op, msg)
		}
	}
	return ""
}

// compareIndexers compares the two indexers' observable state: keys and
// stored objects, and for every index its values and the objects under
// each value. Every op also compares Index for probe; every eighth op
// (full) also compares List and IndexKeys, which read the same state
// through other paths.
func compareIndexers(tc *indexer.Indexer[*corev1.ConfigMap], cg cache.Indexer, probe *corev1.ConfigMap, full bool) string {
	tcKeys, cgKeys := slices.Sorted(slices.Values(tc.ListKeys())), slices.Sorted(slices.Values(cg.ListKeys()))
	if !slices.Equal(tcKeys, cgKeys) {
		return fmt.Sprintf("keys: client-go %v, typedcache %v", cgKeys, tcKeys)
	}
	if tc.Len() != len(cgKeys) {
		return fmt.Sprintf("typedcache Len = %d, want %d", tc.Len(), len(cgKeys))
	}
	for _, k := range cgKeys {
		want, _, _ := cg.GetByKey(k)
		got, ok := tc.GetByKey(k)
		if !ok || got != want.(*corev1.ConfigMap) {
			return fmt.Sprintf("GetByKey(%q): client-go %s, typedcache %s (found %v)", k, fixture.Describe(want.(*corev1.ConfigMap)), fixture.Describe(got), ok)
		}
	}
	if full {
		if got, want := tc.List(), cg.List(); !sameObjects(got, want) {
			return fmt.Sprintf("List: client-go %v, typedcache %v", keysOfAny(want), keysOf(got))
		}
	}
	for _, name := range indexNames {
		cgValues := slices.Sorted(slices.Values(cg.ListIndexFuncValues(name)))
		tcValues, err := tc.ListIndexFuncValues(name)
		if err != nil || !slices.Equal(tcValues, cgValues) {
			return fmt.Sprintf("ListIndexFuncValues(%q): client-go %v (sorted), typedcache %v, %v", name, cgValues, tcValues, err)
		}
		for _, v := range cgValues {
			cgObjs, _ := cg.ByIndex(name, v)
			tcObjs, err := tc.ByIndex(name, v)
			if err != nil || !sameObjects(tcObjs, cgObjs) {
				return fmt.Sprintf("ByIndex(%q, %q): client-go %v, typedcache %v, %v", name, v, keysOfAny(cgObjs), keysOf(tcObjs), err)
			}
			if !full {
				continue
			}
			cgIdx, _ := cg.IndexKeys(name, v)
			tcIdx, err := tc.IndexKeys(name, v)
			if err != nil || !slices.Equal(tcIdx, slices.Sorted(slices.Values(cgIdx))) {
				return fmt.Sprintf("IndexKeys(%q, %q): client-go %v (sorted), typedcache %v, %v", name, v, cgIdx, tcIdx, err)
			}
		}
		cgObjs, _ := cg.Index(name, probe)
		tcObjs, err := tc.Index(name, probe)
		if err != nil || !sameObjects(tcObjs, cgObjs) {
			return fmt.Sprintf("Index(%q, %s): client-go %v, typedcache %v, %v", name, fixture.Describe(probe), keysOfAny(cgObjs), keysOf(tcObjs), err)
		}
	}
	return ""
}

// sameObjects reports whether tc and cg hold the same objects, by
// identity, in any order. Keys are unique in both, so lengths and
// membership suffice.
func sameObjects(tc []*corev1.ConfigMap, cg []any) bool {
	if len(tc) != len(cg) {
		return false
	}
	for _, o := range cg {
		if !slices.Contains(tc, o.(*corev1.ConfigMap)) {
			return false
		}
	}
	return true
}

// keysOf returns the sorted identities of objs.
func keysOf(objs []*corev1.ConfigMap) []string {
	out := make([]string, len(objs))
	for i, cm := range objs {
		out[i] = fixture.Describe(cm)
	}
	slices.Sort(out)
	return out
}

func keysOfAny(objs []any) []string {
	cms := make([]*corev1.ConfigMap, len(objs))
	for i, o := range objs {
		cms[i] = o.(*corev1.ConfigMap)
	}
	return keysOf(cms)
}

func TestIndexerDifferential(t *testing.T) {
	n := diffcheck.Seeded(t, diffcheck.Config{Sequences: 320, Length: 1100}, decodeIndexerOps, runIndexerOps)
	if n < 100_000 {
		t.Errorf("ran %d operations; want at least 100000", n)
	}
}

func FuzzIndexerDifferential(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(diffcheck.Bytes(seed, 300))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		diffcheck.Fuzz(t, data, decodeIndexerOps, runIndexerOps)
	})
}
