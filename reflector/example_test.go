package reflector_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// ConfigMap stands for any Kubernetes-style type: *corev1.ConfigMap has
// the same methods through its ObjectMeta.
type ConfigMap struct {
	Namespace, Name, ResourceVersion string
}

func (c *ConfigMap) GetNamespace() string        { return c.Namespace }
func (c *ConfigMap) GetName() string             { return c.Name }
func (c *ConfigMap) GetResourceVersion() string  { return c.ResourceVersion }
func (c *ConfigMap) SetResourceVersion(v string) { c.ResourceVersion = v }

// printStore prints what the reflector does to it and reports each call on
// calls. A real program uses a deltafifo.DeltaFIFO.
type printStore struct{ calls chan string }

func (s printStore) record(format string, args ...any) error {
	s.calls <- fmt.Sprintf(format, args...)
	return nil
}

func (s printStore) Add(c *ConfigMap) error {
	return s.record("Add %s/%s@%s", c.Namespace, c.Name, c.ResourceVersion)
}
func (s printStore) Update(c *ConfigMap) error {
	return s.record("Update %s/%s@%s", c.Namespace, c.Name, c.ResourceVersion)
}
func (s printStore) Delete(c *ConfigMap) error { return s.record("Delete %s/%s", c.Namespace, c.Name) }
func (s printStore) Resync() error             { return s.record("Resync") }
func (s printStore) Replace(items []*ConfigMap, rv string) error {
	names := make([]string, len(items))
	for i, c := range items {
		names[i] = c.Namespace + "/" + c.Name
	}
	return s.record("Replace [%s] at %s", strings.Join(names, " "), rv)
}

func ExampleNew() {
	src := memsource.New(memsource.Options[*ConfigMap]{})
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "a"})
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "b"})

	store := printStore{calls: make(chan string)}
	r := reflector.New(src, store, reflector.Options{Name: "configmaps"})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })

	fmt.Println(<-store.calls) // the initial list
	_, _ = src.Delete("prod/a")
	fmt.Println(<-store.calls) // then the watch
	_, _ = src.Update(&ConfigMap{Namespace: "prod", Name: "b"})
	fmt.Println(<-store.calls)

	cancel()
	wg.Wait() // Run returns once ctx ends, leaving nothing running
	// The version of the last event applied; a new Run relists from it.
	fmt.Println("synced to", r.LastSyncResourceVersion())
	// Output:
	// Replace [prod/a prod/b] at 3
	// Delete prod/a
	// Update prod/b@5
	// synced to 5
}

// chanWatch is a Watch over a channel the program feeds.
type chanWatch struct {
	events  chan reflector.Event[*ConfigMap]
	stopped chan struct{}
	once    sync.Once
}

func newChanWatch() *chanWatch {
	return &chanWatch{events: make(chan reflector.Event[*ConfigMap]), stopped: make(chan struct{})}
}

// Next returns the next event the program sends, io.EOF once the watch is
// stopped, or ctx.Err() if ctx ends first.
func (w *chanWatch) Next(ctx context.Context) (reflector.Event[*ConfigMap], error) {
	select {
	case ev := <-w.events:
		return ev, nil
	case <-w.stopped:
		return reflector.Event[*ConfigMap]{}, io.EOF
	case <-ctx.Done():
		return reflector.Event[*ConfigMap]{}, ctx.Err()
	}
}

func (w *chanWatch) Stop() { w.once.Do(func() { close(w.stopped) }) }

func ExampleListWatch() {
	// A source written as two functions: List returns a fixed set, Watch a
	// stream that stays quiet. Without Supported set, the reflector uses no
	// optional feature: one unpaginated list, no bookmarks, no streaming.
	store := printStore{calls: make(chan string)}
	lw := &reflector.ListWatch[*ConfigMap]{
		ListFunc: func(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[*ConfigMap], error) {
			store.calls <- fmt.Sprintf("List at %q, limit %d", opts.ResourceVersion, opts.Limit)
			return reflector.ListResult[*ConfigMap]{
				Items:           []*ConfigMap{{Namespace: "dev", Name: "x", ResourceVersion: "7"}},
				ResourceVersion: "7",
			}, nil
		},
		WatchFunc: func(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*ConfigMap], error) {
			store.calls <- fmt.Sprintf("Watch from %q, bookmarks %v", opts.ResourceVersion, opts.AllowBookmarks)
			return newChanWatch(), nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := reflector.New(lw, store, reflector.Options{})
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	for range 3 {
		fmt.Println(<-store.calls)
	}
	cancel()
	wg.Wait()
	// Output:
	// List at "0", limit 0
	// Replace [dev/x] at 7
	// Watch from "7", bookmarks false
}
