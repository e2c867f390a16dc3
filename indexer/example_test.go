package indexer_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// Pod is a stand-in for a Kubernetes type: anything with a namespace, a
// name and a resource version can be stored.
type Pod struct {
	Namespace, Name, ResourceVersion string
	Node                             string
}

func (p *Pod) GetNamespace() string       { return p.Namespace }
func (p *Pod) GetName() string            { return p.Name }
func (p *Pod) GetResourceVersion() string { return p.ResourceVersion }

func byNode(p *Pod) ([]string, error) {
	if p.Node == "" {
		return nil, nil // unscheduled pods are in no bucket
	}
	return []string{p.Node}, nil
}

func podNames(pods []*Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	slices.Sort(out)
	return out
}

func Example() {
	pods := indexer.New(keys.Of[*Pod], indexer.Indexers[*Pod]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*Pod],
		"node":                 byNode,
	})
	_ = pods.Add(&Pod{Namespace: "shop", Name: "web-1", Node: "n1"})
	_ = pods.Add(&Pod{Namespace: "shop", Name: "web-2", Node: "n2"})
	_ = pods.Add(&Pod{Namespace: "ops", Name: "probe", Node: "n1"})

	onN1, _ := pods.ByIndex("node", "n1")
	fmt.Println("on n1:", podNames(onN1))

	// Moving a pod moves it between index buckets.
	_ = pods.Update(&Pod{Namespace: "shop", Name: "web-1", Node: "n2"})
	nodes, _ := pods.ListIndexFuncValues("node")
	fmt.Println("nodes:", nodes)

	web, ok := pods.GetByKey("shop/web-1")
	fmt.Println(web.Node, ok)
	// Output:
	// on n1: [ops/probe shop/web-1]
	// nodes: [n1 n2]
	// n2 true
}

func ExampleIndexer_All() {
	pods := indexer.New(keys.Of[*Pod], nil)
	_ = pods.Replace([]*Pod{{Namespace: "a", Name: "x"}, {Namespace: "b", Name: "y"}})

	// The loop walks a snapshot: it may write to the Indexer, and it sees
	// the objects that were stored when it started.
	for key := range pods.All() {
		_ = pods.Delete(&Pod{Namespace: "b", Name: "y"})
		_ = pods.Add(&Pod{Namespace: "c", Name: "z"})
		fmt.Println("saw", key)
		break
	}
	fmt.Println(slices.Sorted(pods.Keys()))
	// Output:
	// saw a/x
	// [a/x c/z]
}

func ExampleIndexer_Put() {
	pods := indexer.New(keys.Of[*Pod], nil)
	_ = pods.Add(&Pod{Namespace: "shop", Name: "web", ResourceVersion: "1"})

	// An informer has computed the key already and wants the old object
	// to report an update.
	old, existed, _ := pods.Put("shop/web", &Pod{Namespace: "shop", Name: "web", ResourceVersion: "2"})
	fmt.Println(existed, old.ResourceVersion)
	// Output: true 1
}

func ExampleIndexer_AddIndexers() {
	pods := indexer.New(keys.Of[*Pod], nil)
	_ = pods.Add(&Pod{Namespace: "shop", Name: "web", Node: "n1"})

	// Objects already stored are indexed.
	_ = pods.AddIndexers(indexer.Indexers[*Pod]{"node": byNode})
	keys, _ := pods.IndexKeys("node", "n1")
	fmt.Println(keys)

	err := pods.AddIndexers(indexer.Indexers[*Pod]{"node": byNode})
	fmt.Println(errors.Is(err, indexer.ErrIndexExists), err)
	// Output:
	// [shop/web]
	// true indexer: index already exists: "node"
}

func ExampleIndexer_Add_error() {
	pods := indexer.New(keys.Of[*Pod], indexer.Indexers[*Pod]{
		"node": func(p *Pod) ([]string, error) {
			if p.Node == "?" {
				return nil, errors.New("unknown node")
			}
			return []string{p.Node}, nil
		},
	})
	// A failing index function is an error, and the store is unchanged.
	fmt.Println(pods.Add(&Pod{Namespace: "shop", Name: "web", Node: "?"}))
	fmt.Println(pods.Add(&Pod{Namespace: "shop"}))
	fmt.Println(pods.Len())
	// Output:
	// indexer: index "node" of "shop/web": unknown node
	// indexer: computing key: keys: object has an empty name
	// 0
}

func ExampleLister() {
	pods := indexer.New(keys.Of[*Pod], indexer.Indexers[*Pod]{
		indexer.NamespaceIndex: indexer.NamespaceIndexFunc[*Pod],
	})
	_ = pods.Replace([]*Pod{
		{Namespace: "shop", Name: "web", Node: "n1"},
		{Namespace: "shop", Name: "db"},
		{Namespace: "ops", Name: "probe", Node: "n1"},
	})
	lister := indexer.NewLister(pods)

	web, ok := lister.Get("shop", "web")
	fmt.Println(web.Node, ok)
	fmt.Println(podNames(lister.Namespace("shop").List()))
	scheduled := func(p *Pod) bool { return p.Node != "" }
	fmt.Println(podNames(lister.Select(scheduled)))
	fmt.Println(podNames(lister.Namespace("shop").Select(scheduled)))
	// Output:
	// n1 true
	// [shop/db shop/web]
	// [ops/probe shop/web]
	// [shop/web]
}
