package indexer_test

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// appIndex is the name of the label index both sides maintain.
const appIndex = "app"

func newTyped() *indexer.Indexer[*corev1.ConfigMap] {
	return indexer.New(keys.Of[*corev1.ConfigMap], indexer.Indexers[*corev1.ConfigMap]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*corev1.ConfigMap],
		appIndex: func(cm *corev1.ConfigMap) ([]string, error) {
			return []string{cm.Labels["app"]}, nil
		},
	})
}

func newClientGo() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		appIndex: func(obj any) ([]string, error) {
			return []string{obj.(*corev1.ConfigMap).Labels["app"]}, nil
		},
	})
}
