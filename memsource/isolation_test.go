package memsource_test

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// copyable has a DeepCopy method, as Kubernetes API types do.
type copyable struct {
	Namespace, Name, Version string
	Labels                   map[string]string
}

func (c *copyable) GetNamespace() string        { return c.Namespace }
func (c *copyable) GetName() string             { return c.Name }
func (c *copyable) GetResourceVersion() string  { return c.Version }
func (c *copyable) SetResourceVersion(v string) { c.Version = v }

func (c *copyable) DeepCopy() *copyable {
	out := *c
	out.Labels = make(map[string]string, len(c.Labels))
	maps.Copy(out.Labels, c.Labels)
	return &out
}

// served returns the labels of ns/a as Get, List and a new watch serve
// them.
func served(t *testing.T, src *memsource.Source[*copyable]) []map[string]string {
	t.Helper()
	got, _ := src.Get("ns/a")
	res, err := src.List(t.Context(), reflector.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := src.Watch(t.Context(), reflector.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev, err := w.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return []map[string]string{got.Labels, res.Items[0].Labels, ev.Object.Labels}
}

// A handler that modifies the objects it receives changes what the source
// serves next only if the source shares its objects: by default a type
// with DeepCopy is copied on the way in and out; Options.Shared turns
// that off.
func TestHandlerMutationIsolation(t *testing.T) {
	tests := []struct {
		name string
		opts memsource.Options[*copyable]
		want string // the label value the source serves after the handler ran
	}{
		{"DeepCopy by default", memsource.Options[*copyable]{}, "original"},
		{"Clone", memsource.Options[*copyable]{Clone: (*copyable).DeepCopy, Shared: true}, "original"},
		{"Shared", memsource.Options[*copyable]{Shared: true}, "changed by a handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(tt.opts)
				in := &copyable{Namespace: "ns", Name: "a", Labels: map[string]string{"l": "original"}}
				if _, err := src.Create(in); err != nil {
					t.Fatal(err)
				}
				inf := informer.New(src, informer.Options[*copyable]{})
				mutate := func(o *copyable) { o.Labels["l"] = "changed by a handler" }
				if _, err := inf.AddEventHandler(informer.HandlerFuncs[*copyable]{
					AddFunc:    func(o *copyable, _ bool) { mutate(o) },
					UpdateFunc: func(_, o *copyable) { mutate(o) },
				}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error)
				go func() { done <- inf.Run(ctx) }()
				synctest.Wait()
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				want := []map[string]string{{"l": tt.want}, {"l": tt.want}, {"l": tt.want}}
				if diff := cmp.Diff(want, served(t, src)); diff != "" {
					t.Errorf("served labels mismatch (-want +got):\n%s", diff)
				}
				if copies := tt.want == "original"; copies == (in.Version != "") {
					t.Errorf("Create's argument has version %q; the source copies: %t", in.Version, copies)
				}
			})
		})
	}
}
