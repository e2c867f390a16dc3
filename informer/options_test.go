package informer_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// Options.Equal suppresses updates whose content did not change; the
// cache still takes the new state, and resyncs are not suppressed.
func TestEqualSuppressesUnchangedContent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		opts := quiet(t)
		opts.Equal = func(old, new *obj) bool { return old.Value == new.Value }
		opts.ResyncPeriod = time.Hour
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		rec.take()

		update(t, src, "a", 1) // new version, same content
		update(t, src, "a", 2)
		synctest.Wait()
		if diff := cmp.Diff([]string{"update ns/a v1->v2"}, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		cached, _ := inf.Lister().Get("ns", "a")
		if want := src.ResourceVersion(); cached.RV != want {
			t.Errorf("cached version %q, want %q", cached.RV, want)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if diff := cmp.Diff([]string{"update ns/a v2->v2"}, rec.take()); diff != "" {
			t.Errorf("resync events mismatch (-want +got):\n%s", diff)
		}
	})
}

// hundredfold is a Transform that returns a copy of o with its value
// multiplied by 100.
func hundredfold(o *obj) (*obj, error) {
	c := *o
	c.Value *= 100
	return &c, nil
}

// Options.Transform runs before objects are cached.
func TestTransform(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		opts := quiet(t)
		opts.Transform = hundredfold
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		update(t, src, "a", 2)
		synctest.Wait()
		want := []string{"add ns/a v100 initial=true", "update ns/a v100->v200"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		if got, _ := inf.Lister().Get("ns", "a"); got.Value != 200 {
			t.Errorf("cached value %d, want 200", got.Value)
		}
	})
}

// sharingSource is a source that implements reflector.Sharer: Share
// records the values it is given and marks the object as shared.
type sharingSource struct {
	*memsource.Source[*obj]
	mu     sync.Mutex
	shared []int
}

func (s *sharingSource) Share(o *obj) *obj {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shared = append(s.shared, o.Value)
	o.Value++
	return o
}

// The objects an informer caches from a list or a creation go through its
// source's Share once, after the Transform; updates keep their own parts.
func TestShareListedAndCreated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &sharingSource{Source: newSource(t, memsource.Options[*obj]{}, newObj("a", 1))}
		opts := quiet(t)
		opts.Transform = hundredfold
		inf := informer.New(src, opts)
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		update(t, src.Source, "a", 2)
		if _, err := src.Create(newObj("b", 3)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want := []string{"add ns/a v101 initial=true", "update ns/a v101->v200", "add ns/b v301 initial=false"}
		if diff := cmp.Diff(want, rec.take()); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		src.mu.Lock()
		defer src.mu.Unlock()
		if diff := cmp.Diff([]int{100, 300}, src.shared); diff != "" {
			t.Errorf("values given to Share (-want +got):\n%s", diff)
		}
	})
}

// big is a large source type; slim is the projection the cache keeps.
type big struct {
	obj
	Payload []byte
}

type slim struct {
	Namespace, Name, RV string
	Size                int
}

func (s *slim) GetNamespace() string       { return s.Namespace }
func (s *slim) GetName() string            { return s.Name }
func (s *slim) GetResourceVersion() string { return s.RV }
func (s *slim) DeepCopy() *slim            { c := *s; return &c }

// NewProjected caches and delivers only the projection; the listers and
// handlers are typed on it.
func TestNewProjected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*big]{})
		if _, err := src.Create(&big{obj: obj{Namespace: "ns", Name: "a"}, Payload: make([]byte, 1000)}); err != nil {
			t.Fatal(err)
		}
		project := func(b *big) (*slim, error) {
			if len(b.Payload) == 13 {
				return nil, errors.New("unlucky payload")
			}
			return &slim{Namespace: b.Namespace, Name: b.Name, RV: b.RV, Size: len(b.Payload)}, nil
		}
		var errs []error
		inf := informer.NewProjected(src, project, informer.Options[*slim]{
			ErrorHandler: func(_ context.Context, err error) { errs = append(errs, err) },
		})
		var got []string
		if _, err := inf.AddEventHandler(informer.HandlerFuncs[*slim]{
			AddFunc:    func(s *slim, _ bool) { got = append(got, "add "+s.Name) },
			UpdateFunc: func(_, s *slim) { got = append(got, "update "+s.Name) },
		}); err != nil {
			t.Fatal(err)
		}
		start(t, inf)
		synctest.Wait()
		if _, err := src.Create(&big{obj: obj{Namespace: "ns", Name: "b"}, Payload: make([]byte, 13)}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s, ok := inf.Lister().Get("ns", "a")
		if !ok || s.Size != 1000 {
			t.Errorf("Lister().Get(ns, a) = %+v, %t; want the projection with Size 1000", s, ok)
		}
		if diff := cmp.Diff([]string{"add a"}, got); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		if len(errs) == 0 || !strings.Contains(errs[0].Error(), "unlucky payload") || !errors.Is(errs[0], reflector.ErrStore) {
			t.Errorf("reported errors %v, want the projection failure wrapped in reflector.ErrStore", errs)
		}
	})
}

// FilteringHandler turns updates across the filter into adds and deletes.
func TestFilteringHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
		inf := informer.New(src, quiet(t))
		rec := newRecorder()
		mustAdd(t, inf, informer.FilteringHandler[*obj]{
			Filter:  func(o *obj) bool { return o.Value%2 == 0 },
			Handler: rec,
		}, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		update(t, src, "a", 4) // enters
		update(t, src, "b", 3) // leaves
		update(t, src, "a", 6) // stays
		update(t, src, "b", 5) // stays out
		remove(t, src, "a")
		synctest.Wait()
		// Order across keys depends on batching; the order within a key
		// is checked by the recorder's consistency check.
		want := sorted([]string{
			"add ns/b v2 initial=true",
			"add ns/a v4 initial=false",
			"delete ns/b v2",
			"update ns/a v4->v6",
			"delete ns/a v6",
		})
		if diff := cmp.Diff(want, sorted(rec.take())); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		if len(rec.problems) > 0 {
			t.Errorf("inconsistent notifications:\n%s", join(rec.problems))
		}
	})
}

// WaitForCacheSync names what did not sync, and why.
func TestWaitForCacheSyncNamesUnsynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		good := informer.New(newSource(t, memsource.Options[*obj]{}, newObj("a", 1)), informer.Options[*obj]{Name: "good"})
		failing := newSource(t, memsource.Options[*obj]{Faults: memsource.Faults{FailLists: 1 << 30, FailWatches: 1 << 30}})
		bad := informer.New(failing, informer.Options[*obj]{Name: "bad", ErrorHandler: func(context.Context, error) {}})
		stuck := newGate(newRecorder(), always)
		goodReg := mustAdd(t, good, newRecorder(), informer.HandlerOptions{Name: "fine"})
		stuckReg := mustAdd(t, good, stuck, informer.HandlerOptions{Name: "stuck"})
		start(t, good)
		start(t, bad)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		err := informer.WaitForCacheSync(ctx, good, goodReg, bad, stuckReg)
		if !errors.Is(err, informer.ErrNotSynced) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForCacheSync() = %v, want ErrNotSynced and DeadlineExceeded", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "bad, stuck") || strings.Contains(msg, "good") || strings.Contains(msg, "fine") {
			t.Errorf("WaitForCacheSync() = %q, want it to name exactly bad and stuck", msg)
		}
		stuck.Open()
		if err := informer.WaitForCacheSync(t.Context(), good, goodReg, stuckReg); err != nil {
			t.Errorf("WaitForCacheSync() of synced ones = %v", err)
		}
	})
}

// A nil Syncer, untyped or a nil pointer, is reported with its position
// instead of panicking.
func TestWaitForCacheSyncNil(t *testing.T) {
	var unset *informer.Informer[*obj]
	var unsetReg *informer.Registration[*obj]
	tests := []struct {
		name    string
		syncers []informer.Syncer
		want    string
	}{
		{"untyped nil", []informer.Syncer{nil}, "syncer 1 of 1 is nil"},
		{"nil informer", []informer.Syncer{informer.NewFactory(informer.FactoryOptions{}), unset}, "syncer 2 of 2 is nil"},
		{"nil registration", []informer.Syncer{unsetReg}, "syncer 1 of 1 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := informer.WaitForCacheSync(t.Context(), tt.syncers...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WaitForCacheSync() = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// Without an ErrorHandler, errors go to Options.Logger; a handler panic
// is logged with its stack.
func TestDefaultErrorHandlerLogs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		var mu sync.Mutex
		logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &out, mu: &mu}, nil))
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		inf := informer.New(src, informer.Options[*obj]{Logger: logger, Name: "pods"})
		mustAdd(t, inf, informer.HandlerFuncs[*obj]{AddFunc: func(*obj, bool) { panic("kaboom") }}, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, want := range []string{"handler panicked", "informer=pods", "kaboom", "stack=", "goroutine"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("log %q does not contain %q", out.String(), want)
			}
		}
	})
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestInvalidOverflowIsAnError pins that a buffer policy other than Block
// and Coalesce is refused when the handler is added.
func TestInvalidOverflowIsAnError(t *testing.T) {
	inf := informer.New[*obj](memsource.New(memsource.Options[*obj]{}), informer.Options[*obj]{})
	_, err := inf.AddEventHandlerWithOptions(informer.HandlerFuncs[*obj]{}, informer.HandlerOptions{
		Buffer: informer.BufferOptions{Size: 10, Overflow: informer.Overflow(7)},
	})
	if err == nil || !strings.Contains(err.Error(), "Overflow(invalid)") {
		t.Errorf("AddEventHandlerWithOptions(Overflow 7) error = %v, want one naming the invalid policy", err)
	}
}
