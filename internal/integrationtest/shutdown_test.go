package integrationtest

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
	"github.com/typedcache/typedcache/reflector"
)

// TestShutdownRule checks the rule every Run in the module follows: the end
// of its context is not an error, so Run returns nil then, with nothing it
// started left running (goleak checks at the end of the package); a
// non-nil error means Run could not run at all and returned at once.
func TestShutdownRule(t *testing.T) {
	discard := slog.New(slog.DiscardHandler)
	tests := []struct {
		name string
		// make returns a Run to start and a call of Run that cannot run.
		make func(src *memsource.Source[*thing]) (run, refused func(context.Context) error)
	}{{
		name: "informer.Informer.Run",
		make: func(src *memsource.Source[*thing]) (run, refused func(context.Context) error) {
			inf := informer.New(src, informer.Options[*thing]{Logger: discard})
			return inf.Run, inf.Run // a second Run: ErrStarted
		},
	}, {
		name: "reflector.Reflector.Run",
		make: func(src *memsource.Source[*thing]) (run, refused func(context.Context) error) {
			r := reflector.New(src, discardStore{}, reflector.Options{Logger: discard})
			return r.Run, r.Run // a concurrent Run: ErrRunning
		},
	}, {
		name: "queue.TypedRateLimitingQueue.Run",
		make: func(*memsource.Source[*thing]) (run, refused func(context.Context) error) {
			q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{Logger: discard})
			q.Add("a")
			process := func(context.Context, string) (queue.Result, error) { return queue.Result{}, nil }
			run = func(ctx context.Context) error { return q.Run(ctx, process, queue.RunOptions[string]{Workers: 2}) }
			refused = func(ctx context.Context) error { return q.Run(ctx, process, queue.RunOptions[string]{Workers: -1}) }
			return run, refused
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(memsource.Options[*thing]{})
				if _, err := src.Create(&thing{Namespace: "ns", Name: "a"}); err != nil {
					t.Fatalf("Create: %v", err)
				}
				run, refused := tt.make(src)
				ctx, cancel := context.WithCancel(t.Context())
				errc := make(chan error)
				go func() { errc <- run(ctx) }()
				synctest.Wait()
				if err := refused(t.Context()); err == nil {
					t.Errorf("a Run that cannot run returned nil, want an error")
				}
				select {
				case err := <-errc:
					t.Fatalf("Run returned %v before its context ended", err)
				default:
				}
				cancel()
				if err := <-errc; err != nil {
					t.Errorf("Run() = %v after its context ended, want nil", err)
				}
			})
		})
	}
}

// discardStore is a reflector.Store that keeps nothing.
type discardStore struct{}

func (discardStore) Add(*thing) error               { return nil }
func (discardStore) Update(*thing) error            { return nil }
func (discardStore) Delete(*thing) error            { return nil }
func (discardStore) Replace([]*thing, string) error { return nil }
func (discardStore) Resync() error                  { return nil }
