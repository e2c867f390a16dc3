package indexer_test

import (
	"errors"
	"slices"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// obj is the stored type of the tests: a pointer type, like Kubernetes
// objects.
type obj struct {
	Namespace, Name, RV string
	// Tags are the values of the multi-valued "tag" index.
	Tags []string
	// Fail makes failIndex return an error.
	Fail bool
}

func (o *obj) GetNamespace() string       { return o.Namespace }
func (o *obj) GetName() string            { return o.Name }
func (o *obj) GetResourceVersion() string { return o.RV }

var errFail = errors.New("refusing to index")

func tagIndex(o *obj) ([]string, error) { return o.Tags, nil }

func rvIndex(o *obj) ([]string, error) { return []string{o.RV}, nil }

func failIndex(o *obj) ([]string, error) {
	if o.Fail {
		return nil, errFail
	}
	return []string{"ok"}, nil
}

// testIndexers returns the namespace, tag and fail indexes.
func testIndexers() indexer.Indexers[*obj] {
	return indexer.Indexers[*obj]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*obj],
		"tag":                  tagIndex,
		"fail":                 failIndex,
	}
}

func newTestIndexer() *indexer.Indexer[*obj] {
	return indexer.New(keys.Of[*obj], testIndexers())
}

// names returns the sorted "namespace/name" of objs.
func names(objs []*obj) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keys.Join(o.Namespace, o.Name)
	}
	slices.Sort(out)
	return out
}
