package memsource_test

import (
	"context"
	"errors"
	"fmt"
	"io"
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
// "Bookmark @5 end".
func describe(ev reflector.Event[*item]) string {
	if ev.Type == reflector.Bookmark {
		if ev.InitialEventsEnd {
			return fmt.Sprintf("Bookmark @%s end", ev.ResourceVersion)
		}
		return fmt.Sprintf("Bookmark @%s", ev.ResourceVersion)
	}
	rv := ev.ResourceVersion
	if rv == "" {
		rv = ev.Object.Version
	}
	return fmt.Sprintf("%s %s/%s=%d @%s", ev.Type, ev.Object.Namespace, ev.Object.Name, ev.Object.Value, rv)
}

// describeEnd renders how a stream ended: "" for io.EOF, "Error expired"
// for an expiry, "Error " and the message otherwise.
func describeEnd(err error) string {
	switch {
	case err == io.EOF:
		return ""
	case errors.Is(err, reflector.ErrExpired):
		return "Error expired"
	}
	return "Error " + err.Error()
}

// drain returns the descriptions of the events the watch has ready once
// the bubble is idle, and reports whether the stream ended; a failure that
// ended it is the last description. It must run inside a synctest bubble.
func drain(w reflector.Watch[*item]) (events []string, closed bool) {
	type result struct {
		ev  reflector.Event[*item]
		err error
	}
	for {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan result, 1)
		go func() {
			ev, err := w.Next(ctx)
			got <- result{ev, err}
		}()
		synctest.Wait() // Next returned, or waits for something that is not coming
		cancel()
		r := <-got
		switch {
		case r.err == nil:
			events = append(events, describe(r.ev))
		case errors.Is(r.err, context.Canceled):
			return events, false
		default:
			if end := describeEnd(r.err); end != "" {
				events = append(events, end)
			}
			return events, true
		}
	}
}

// reader reads a watch on a goroutine of its own, as a reflector does,
// recording a description of every event.
type reader struct {
	cancel context.CancelFunc
	done   chan struct{}
	events []string // written by the goroutine until done is closed
}

// startReader starts reading w until the stream ends or stop is called.
func startReader(w reflector.Watch[*item]) *reader {
	ctx, cancel := context.WithCancel(context.Background())
	r := &reader{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			ev, err := w.Next(ctx)
			if err != nil {
				if end := describeEnd(err); end != "" && ctx.Err() == nil {
					r.events = append(r.events, end)
				}
				return
			}
			r.events = append(r.events, describe(ev))
		}
	}()
	return r
}

// stop ends the reading and returns the events read.
func (r *reader) stop() []string {
	r.cancel()
	<-r.done
	return r.events
}

// readAll reads w until its stream ends and returns the events and the
// error that ended it (nil for io.EOF).
func readAll(w reflector.Watch[*item]) ([]reflector.Event[*item], error) {
	var evs []reflector.Event[*item]
	for {
		ev, err := w.Next(context.Background())
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// next returns the next event of w, failing the test if the stream ended.
func next(t testing.TB, w reflector.Watch[*item]) reflector.Event[*item] {
	t.Helper()
	ev, err := w.Next(t.Context())
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return ev
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
