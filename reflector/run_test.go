package reflector_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

func TestRunReturnsPromptly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		caps    reflector.Capabilities
		lists   []listReply
		watches []watchReply
		after   time.Duration // when to cancel
	}{
		{name: "during a list", lists: []listReply{{block: true}}},
		{name: "during a watch", lists: []listReply{list("10", "a")}},
		{name: "during a streaming list", caps: streaming, watches: []watchReply{openWatch(added("a", "1"))}},
		{name: "while backing off after a failed list", lists: []listReply{{err: errBoom}}, after: 100 * time.Millisecond},
		{name: "while backing off after a failed watch", lists: []listReply{list("10", "a")}, watches: []watchReply{failedWatch(errBoom)}, after: 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(tc.caps)
				lw.lists = tc.lists
				lw.watches = tc.watches
				rn := start(t, lw, &recStore{}, reflector.Options{ResyncPeriod: time.Minute})
				time.Sleep(tc.after)
				synctest.Wait()
				calls := len(lw.Calls())
				rn.cancel()
				synctest.Wait() // no time passes: Run must return without waiting
				select {
				case <-rn.done:
				default:
					t.Fatalf("Run still running after its context ended")
				}
				if n := len(lw.Calls()); n != calls {
					t.Errorf("the source got %d more calls after cancellation: %q", n-calls, lw.Calls()[calls:])
				}
				if !lw.allStopped() {
					t.Errorf("Run returned without stopping every watch")
				}
			})
		})
	}
}

func TestRunAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{list("10", "a"), list("12", "a")}
		lw.watches = []watchReply{openWatch(added("b", "11"))}
		store := &recStore{}
		rn := start(t, lw, store, reflector.Options{})
		synctest.Wait()

		// A second Run while the first runs returns at once.
		if err := rn.r.Run(t.Context()); !errors.Is(err, reflector.ErrRunning) {
			t.Errorf("second Run() = %v, want ErrRunning", err)
		}
		rn.stop()

		// Run after Run relists from the last version seen.
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := rn.r.Run(ctx); err != nil {
				t.Errorf("Run() = %v, want nil when ctx ends", err)
			}
		}()
		synctest.Wait()
		cancel()
		<-done
		wantCalls := []string{
			`List(rv="0" limit=0 continue="")`,
			`Watch(rv="10")`,
			`List(rv="11" limit=0 continue="")`,
			`Watch(rv="12")`,
		}
		if diff := cmp.Diff(wantCalls, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestNameAndLogging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{{err: errBoom}, list("10", "a")}
		lw.watches = []watchReply{openWatch(event{Type: reflector.Added})}
		var buf bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		}))
		r := reflector.New(lw, &recStore{}, reflector.Options{Logger: logger})
		if got, want := r.Name(), "*reflector_test.obj"; got != want {
			t.Errorf("default Name() = %q, want %q", got, want)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx)
		}()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		cancel()
		<-done
		log := buf.String()
		for _, want := range []string{
			`level=ERROR msg="reflector error" reflector=*reflector_test.obj err="reflector: list at resource version \"0\": boom"`,
			`level=WARN msg="reflector error" reflector=*reflector_test.obj err="reflector: malformed input: Added event: missing object`,
		} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q; log:\n%s", want, log)
			}
		}
	})
}

func TestNameOption(t *testing.T) {
	lw := &reflector.ListWatch[keys.Object]{}
	store := &discard[keys.Object]{}
	if got := reflector.New(lw, store, reflector.Options{}).Name(); got != "reflector" {
		t.Errorf("Name() for an interface type = %q, want %q", got, "reflector")
	}
	if got := reflector.New(lw, store, reflector.Options{Name: "pods"}).Name(); got != "pods" {
		t.Errorf("Name() = %q, want %q", got, "pods")
	}
}

// discard is a Store that keeps nothing.
type discard[T any] struct{}

func (discard[T]) Add(T) error               { return nil }
func (discard[T]) Update(T) error            { return nil }
func (discard[T]) Delete(T) error            { return nil }
func (discard[T]) Replace([]T, string) error { return nil }
func (discard[T]) Resync() error             { return nil }

func TestListWatch(t *testing.T) {
	ctx := t.Context()
	var empty reflector.ListWatch[*obj]
	if _, err := empty.List(ctx, reflector.ListOptions{}); err == nil {
		t.Errorf("List without ListFunc succeeded")
	}
	if _, err := empty.Watch(ctx, reflector.WatchOptions{}); err == nil {
		t.Errorf("Watch without WatchFunc succeeded")
	}
	var gotList reflector.ListOptions
	var gotWatch reflector.WatchOptions
	lw := &reflector.ListWatch[*obj]{
		ListFunc: func(_ context.Context, opts reflector.ListOptions) (reflector.ListResult[*obj], error) {
			gotList = opts
			return reflector.ListResult[*obj]{ResourceVersion: "7"}, nil
		},
		WatchFunc: func(_ context.Context, opts reflector.WatchOptions) (reflector.Watch[*obj], error) {
			gotWatch = opts
			return nil, errBoom
		},
		Supported: reflector.Capabilities{Pagination: true},
	}
	res, err := lw.List(ctx, reflector.ListOptions{ResourceVersion: "3", Limit: 5})
	if err != nil || res.ResourceVersion != "7" || gotList != (reflector.ListOptions{ResourceVersion: "3", Limit: 5}) {
		t.Errorf("List() = %+v, %v with options %+v; want the ListFunc's answer", res, err, gotList)
	}
	if _, err := lw.Watch(ctx, reflector.WatchOptions{ResourceVersion: "7"}); !errors.Is(err, errBoom) || gotWatch.ResourceVersion != "7" {
		t.Errorf("Watch() = %v with options %+v; want the WatchFunc's answer", err, gotWatch)
	}
	if got := lw.Capabilities(); got != lw.Supported {
		t.Errorf("Capabilities() = %+v, want %+v", got, lw.Supported)
	}
}

func TestNilInterfaceObjects(t *testing.T) {
	// With T an interface type, a nil object is a nil interface, whose
	// methods panic; the reflector skips it.
	synctest.Test(t, func(t *testing.T) {
		var replaced []keys.Object
		store := &funcStore[keys.Object]{replace: func(items []keys.Object, _ string) error {
			replaced = items
			return nil
		}}
		lw := &reflector.ListWatch[keys.Object]{
			ListFunc: func(context.Context, reflector.ListOptions) (reflector.ListResult[keys.Object], error) {
				return reflector.ListResult[keys.Object]{Items: []keys.Object{nil, o("a", "1")}, ResourceVersion: "1"}, nil
			},
			WatchFunc: func(ctx context.Context, _ reflector.WatchOptions) (reflector.Watch[keys.Object], error) {
				return nil, ctx.Err()
			},
		}
		var errs []error
		r := reflector.New(lw, store, reflector.Options{ErrorHandler: func(_ context.Context, err error) { errs = append(errs, err) }})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx)
		}()
		synctest.Wait()
		cancel()
		<-done
		if len(replaced) != 1 || replaced[0].GetName() != "a" {
			t.Errorf("Replace got %v, want only a", replaced)
		}
		// The WatchFunc returns neither a watch nor an error: a failure.
		if len(errs) != 2 || !errors.Is(errs[0], reflector.ErrMalformed) || !strings.Contains(errs[1].Error(), "nil Watch") {
			t.Errorf("reported errors = %v, want ErrMalformed, then a nil Watch failure", errs)
		}
	})
}

// funcStore is a Store whose Replace is a function; the rest do nothing.
type funcStore[T any] struct {
	discard[T]
	replace func([]T, string) error
}

func (s *funcStore[T]) Replace(items []T, rv string) error { return s.replace(items, rv) }

// bufferedWatch is a Watch whose events are all ready at once.
type bufferedWatch struct {
	events chan reflector.Event[*obj]
}

func (w bufferedWatch) Next(context.Context) (reflector.Event[*obj], error) {
	ev, ok := <-w.events
	if !ok {
		return ev, io.EOF
	}
	return ev, nil
}

func (w bufferedWatch) Stop() {}

// addCounter is a Store that counts Adds and calls onAdd after each.
type addCounter struct {
	discard[*obj]
	adds  int
	onAdd func(n int)
}

func (s *addCounter) Add(*obj) error {
	s.adds++
	s.onAdd(s.adds)
	return nil
}

func TestCancelDuringEventFlood(t *testing.T) {
	// Events that are always ready must not keep Run from seeing that its
	// context ended: it looks again at least every 64 events.
	events := make(chan reflector.Event[*obj], 1000)
	for i := range cap(events) {
		events <- added(fmt.Sprint("o", i), fmt.Sprint(i+2))
	}
	lw := &reflector.ListWatch[*obj]{
		ListFunc: func(context.Context, reflector.ListOptions) (reflector.ListResult[*obj], error) {
			return reflector.ListResult[*obj]{ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, reflector.WatchOptions) (reflector.Watch[*obj], error) {
			return bufferedWatch{events}, nil
		},
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	store := &addCounter{onAdd: func(n int) {
		if n == 10 {
			cancel()
		}
	}}
	reflector.New(lw, store, reflector.Options{Logger: discardLogger}).Run(ctx)
	if store.adds >= 10+64 {
		t.Errorf("Run applied %d events after its context ended at the 10th", store.adds-10)
	}
}
