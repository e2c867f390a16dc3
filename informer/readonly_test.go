package informer_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// readOnlyRecorder is a source that records the ReadOnly option of every
// List and Watch.
type readOnlyRecorder struct {
	*memsource.Source[*obj]
	mu    sync.Mutex
	calls []bool
}

func (s *readOnlyRecorder) List(ctx context.Context, opts reflector.ListOptions) (reflector.ListResult[*obj], error) {
	s.record(opts.ReadOnly)
	return s.Source.List(ctx, opts)
}

func (s *readOnlyRecorder) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*obj], error) {
	s.record(opts.ReadOnly)
	return s.Source.Watch(ctx, opts)
}

func (s *readOnlyRecorder) record(readOnly bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, readOnly)
}

// runnable is an informer of any type.
type runnable interface{ Run(context.Context) error }

// An informer lists and watches ReadOnly exactly when nothing edits the
// objects before they are cached: without a Transform. A projecting
// informer never does, since its projection reads the source's objects.
func TestReadOnlyWithoutTransform(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(reflector.ListerWatcher[*obj]) runnable
		want bool
	}{
		{"no transform", func(src reflector.ListerWatcher[*obj]) runnable {
			return informer.New(src, quiet(t))
		}, true},
		{"transform", func(src reflector.ListerWatcher[*obj]) runnable {
			opts := quiet(t)
			opts.Transform = hundredfold
			return informer.New(src, opts)
		}, false},
		{"projection", func(src reflector.ListerWatcher[*obj]) runnable {
			return informer.NewProjected(src, func(o *obj) (*slim, error) {
				return &slim{Namespace: o.Namespace, Name: o.Name, RV: o.RV}, nil
			}, informer.Options[*slim]{})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := &readOnlyRecorder{Source: newSource(t, memsource.Options[*obj]{}, newObj("a", 1))}
				inf := tc.new(src)
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error)
				go func() { done <- inf.Run(ctx) }()
				synctest.Wait()
				cancel()
				<-done
				src.mu.Lock()
				defer src.mu.Unlock()
				want := make([]bool, len(src.calls))
				for i := range want {
					want[i] = tc.want
				}
				if len(src.calls) == 0 {
					t.Fatal("the informer neither listed nor watched")
				}
				if diff := cmp.Diff(want, src.calls); diff != "" {
					t.Errorf("ReadOnly of each call (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// Without a Transform the informer never calls Share: its lists and
// watches are ReadOnly, and a sharing source shares what it delivers.
func TestNoShareWithoutTransform(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &sharingSource{Source: newSource(t, memsource.Options[*obj]{}, newObj("a", 1))}
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		if _, err := src.Create(newObj("b", 3)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if diff := cmp.Diff([]string{"add ns/a v1 initial=true", "add ns/b v3 initial=false"}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		src.mu.Lock()
		defer src.mu.Unlock()
		if len(src.shared) != 0 {
			t.Errorf("Share was called with %v", src.shared)
		}
	})
}
