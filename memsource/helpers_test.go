package memsource_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// A Source is a ListerWatcher.
var _ reflector.ListerWatcher[*item] = (*memsource.Source[*item])(nil)

// item is a minimal object with Kubernetes-style accessors.
type item struct {
	Namespace, Name string
	Version         string
	Value           int
}

func (i *item) GetNamespace() string        { return i.Namespace }
func (i *item) GetName() string             { return i.Name }
func (i *item) GetResourceVersion() string  { return i.Version }
func (i *item) SetResourceVersion(v string) { i.Version = v }

// cloneItem is an Options.Clone for items.
func cloneItem(i *item) *item {
	c := *i
	return &c
}

// newItem returns an item in namespace "ns".
func newItem(name string, value int) *item {
	return &item{Namespace: "ns", Name: name, Value: value}
}

// mustCreate creates items named by names with value 0, failing the test on
// error.
func mustCreate(t testing.TB, src *memsource.Source[*item], names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := src.Create(newItem(n, 0)); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
}

// describe renders an event compactly for comparisons: "Added ns/a=1 @2",
// "Bookmark @5 end", "Error expired".
func describe(ev reflector.Event[*item]) string {
	switch ev.Type {
	case reflector.Bookmark:
		if ev.InitialEventsEnd {
			return fmt.Sprintf("Bookmark @%s end", ev.ResourceVersion)
		}
		return fmt.Sprintf("Bookmark @%s", ev.ResourceVersion)
	case reflector.Error:
		if errors.Is(ev.Err, reflector.ErrExpired) {
			return "Error expired"
		}
		return "Error " + ev.Err.Error()
	}
	rv := ev.ResourceVersion
	if rv == "" {
		rv = ev.Object.Version
	}
	return fmt.Sprintf("%s %s/%s=%d @%s", ev.Type, ev.Object.Namespace, ev.Object.Name, ev.Object.Value, rv)
}

// drain returns the descriptions of the events the watch has ready once
// the bubble is idle, and reports whether Events was closed. It must run
// inside a synctest bubble.
func drain(w reflector.Watch[*item]) (events []string, closed bool) {
	for {
		synctest.Wait()
		n := len(events)
		for {
			select {
			case ev, ok := <-w.Events():
				if !ok {
					return events, true
				}
				events = append(events, describe(ev))
				continue
			default:
			}
			break
		}
		if len(events) == n {
			return events, false
		}
	}
}

// mustWatch starts a watch, failing the test on error, and stops it at the
// end of the test.
func mustWatch(t *testing.T, src *memsource.Source[*item], opts reflector.WatchOptions) reflector.Watch[*item] {
	t.Helper()
	w, err := src.Watch(t.Context(), opts)
	if err != nil {
		t.Fatalf("Watch(%+v): %v", opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// names returns the names of items.
func names(items []*item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Name
	}
	return out
}

// listAll lists every page of src with the given page size and returns the
// items and the version of the first page.
func listAll(ctx context.Context, src *memsource.Source[*item], limit int64) ([]*item, string, error) {
	var items []*item
	opts := reflector.ListOptions{Limit: limit}
	version := ""
	for {
		res, err := src.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		if version == "" {
			version = res.ResourceVersion
		} else if res.ResourceVersion != version {
			return nil, "", fmt.Errorf("page at version %s, first page at %s", res.ResourceVersion, version)
		}
		items = append(items, res.Items...)
		if res.Continue == "" {
			return items, version, nil
		}
		opts.Continue = res.Continue
	}
}
