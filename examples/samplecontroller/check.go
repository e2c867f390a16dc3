package main

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// checkWorld returns the differences between what the sources hold and what
// the controller is meant to achieve, and between each cache and its source.
// An empty result means the world is consistent.
func checkWorld(c *Controller) []string {
	foos, err1 := listAll(c.foos)
	bars, err2 := listAll(c.bars)
	if err1 != nil || err2 != nil {
		return []string{fmt.Sprintf("listing the sources: %v %v", err1, err2)}
	}
	var problems []string
	owned := map[string][]*Bar{} // Foo key -> its children
	for _, b := range bars {
		k := keys.Join(b.Namespace, b.Owner)
		owned[k] = append(owned[k], b)
	}
	for _, f := range foos {
		k := keys.Join(f.Namespace, f.Name)
		children := owned[k]
		delete(owned, k)
		if len(children) != f.Replicas {
			problems = append(problems, fmt.Sprintf("foo %s wants %d bars, has %d", k, f.Replicas, len(children)))
		}
		for _, b := range children {
			if b.Image != f.Image {
				problems = append(problems, fmt.Sprintf("bar %s/%s runs %s, its foo wants %s", b.Namespace, b.Name, b.Image, f.Image))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(owned)) {
		problems = append(problems, fmt.Sprintf("%d orphaned bars of deleted foo %s", len(owned[k]), k))
	}
	problems = append(problems, compareCache("foo", c.fooInf, foos)...)
	problems = append(problems, compareCache("bar", c.barInf, bars)...)
	return problems
}

// compareCache reports every object whose cached version differs from the
// source's, and every object only one of them has.
func compareCache[T keys.Object](kind string, inf *informer.Informer[T], want []T) []string {
	var problems []string
	cache := inf.Cache()
	for _, obj := range want {
		key := keys.Join(obj.GetNamespace(), obj.GetName())
		got, ok := cache.GetByKey(key)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s cache lacks %s", kind, key))
		case got.GetResourceVersion() != obj.GetResourceVersion():
			problems = append(problems, fmt.Sprintf("%s cache has %s at version %s, source at %s", kind, key, got.GetResourceVersion(), obj.GetResourceVersion()))
		}
	}
	if n := cache.Len(); n != len(want) {
		problems = append(problems, fmt.Sprintf("%s cache holds %d objects, source %d", kind, n, len(want)))
	}
	return problems
}

func listAll[T memsource.Object](src *memsource.Source[T]) ([]T, error) {
	res, err := src.List(context.Background(), reflector.ListOptions{})
	return res.Items, err
}
