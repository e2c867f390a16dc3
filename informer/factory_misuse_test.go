package informer_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// panicOf returns what f panics with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// For and ForWithOptions called with a nil factory or source panic with a
// message that names the misuse, like New, instead of a nil dereference.
func TestForMisusePanics(t *testing.T) {
	src := memsource.New(memsource.Options[*obj]{})
	tests := []struct {
		name string
		call func()
		want any
	}{
		{
			name: "For with a nil factory",
			call: func() { informer.For(nil, src) },
			want: "informer: For called with a nil *Factory; create one with NewFactory",
		},
		{
			name: "ForWithOptions with a nil factory",
			call: func() { informer.ForWithOptions(nil, src, informer.Options[*obj]{}) },
			want: "informer: For called with a nil *Factory; create one with NewFactory",
		},
		{
			name: "For with a nil source",
			call: func() { informer.For[*obj](informer.NewFactory(informer.FactoryOptions{}), nil) },
			want: "informer: For called with a nil source",
		},
		{
			name: "For with a nil source of a zero factory",
			call: func() { informer.For(&informer.Factory{}, reflector.ListerWatcher[*obj](nil)) },
			want: "informer: For called with a nil source",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, panicOf(tt.call)); diff != "" {
				t.Errorf("panic mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// WaitForSync before Start reports that nothing was started instead of
// returning nil for a sync of nothing; after Start it waits as usual.
func TestFactoryWaitForSyncBeforeStart(t *testing.T) {
	tests := []struct {
		name     string
		informer bool // whether For created an informer before the wait
	}{
		{"no informer", false},
		{"an informer created but not started", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := informer.NewFactory(informer.FactoryOptions{})
				defer f.Shutdown()
				if tt.informer {
					informer.For(f, newSource(t, memsource.Options[*obj]{}, newObj("a", 1)))
				}
				if err := f.WaitForSync(t.Context()); !errors.Is(err, informer.ErrFactoryNotStarted) {
					t.Fatalf("WaitForSync() before Start = %v, want ErrFactoryNotStarted", err)
				}
				if tt.informer {
					f.Start(t.Context())
					if err := f.WaitForSync(t.Context()); err != nil {
						t.Errorf("WaitForSync() after Start = %v, want nil", err)
					}
				}
			})
		})
	}
}
