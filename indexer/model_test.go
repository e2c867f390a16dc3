package indexer_test

import (
	"maps"
	"slices"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// model is a deliberately naive Indexer: a map of objects and the index
// functions, with every index recomputed from scratch when asked for.
type model struct {
	objs     map[string]*obj
	indexers map[string]indexer.IndexFunc[*obj]
}

func newModel(indexers indexer.Indexers[*obj]) *model {
	return &model{objs: map[string]*obj{}, indexers: maps.Clone(indexers)}
}

// indexable reports whether every index function accepts o.
func (m *model) indexable(o *obj) bool {
	for _, f := range m.indexers {
		if _, err := f(o); err != nil {
			return false
		}
	}
	return true
}

// put reports what Put should return, and whether it should fail: only
// the new object is indexed.
func (m *model) put(key string, o *obj) (old *obj, existed, fails bool) {
	if !m.indexable(o) {
		return nil, false, true
	}
	old, existed = m.objs[key]
	m.objs[key] = o
	return old, existed, false
}

// deleteKey reports what DeleteKey should return; it never fails.
func (m *model) deleteKey(key string) (old *obj, existed, fails bool) {
	old, existed = m.objs[key]
	delete(m.objs, key)
	return old, existed, false
}

// replace reports whether Replace should fail.
func (m *model) replace(objs []*obj) (fails bool) {
	next := map[string]*obj{}
	for _, o := range objs {
		key, err := keys.Of(o)
		if err != nil {
			return true
		}
		next[key] = o
	}
	for _, o := range next {
		if !m.indexable(o) {
			return true
		}
	}
	m.objs = next
	return false
}

// addIndexers reports whether AddIndexers should fail.
func (m *model) addIndexers(add indexer.Indexers[*obj]) (fails bool) {
	for name, f := range add {
		if _, ok := m.indexers[name]; ok {
			return true
		}
		for _, o := range m.objs {
			if _, err := f(o); err != nil {
				return true
			}
		}
	}
	maps.Copy(m.indexers, add)
	return false
}

// index returns the named index: each value with the sorted keys having it.
func (m *model) index(name string) map[string][]string {
	sets := map[string]map[string]bool{}
	for key, o := range m.objs {
		vals, _ := m.indexers[name](o)
		for _, v := range vals {
			if sets[v] == nil {
				sets[v] = map[string]bool{}
			}
			sets[v][key] = true
		}
	}
	out := map[string][]string{}
	for v, keys := range sets {
		out[v] = slices.Sorted(maps.Keys(keys))
	}
	return out
}
