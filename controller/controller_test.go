package controller_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// newController returns a controller of r with a primary watch of foos
// and a secondary watch of bars mapped to their owners.
func newController(t *testing.T, e *env, r *recorder, opts controller.Options[string]) *controller.Controller[string] {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = discard
	}
	c := controller.New("foo", r.reconcile, opts)
	if err := controller.For(c, e.fooInf); err != nil {
		t.Fatalf("For() = %v", err)
	}
	if err := controller.Watches(c, e.barInf, ownerOf); err != nil {
		t.Fatalf("Watches() = %v", err)
	}
	return c
}

func TestReconcilesInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		e.createFoo("b")
		e.createBar("b-0", "b")
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		settle(t, c)
		// b is listed twice, as a Foo and as the owner of b-0: the queue
		// collapses the two adds.
		if diff := cmp.Diff([]string{"ns/a", "ns/b"}, r.sorted()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
		if !c.HasSynced() {
			t.Error("HasSynced() = false after the initial list was reconciled")
		}
	})
}

func TestSecondaryChangeQueuesOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		e.createFoo("b")
		bar := e.createBar("bar", "a")
		orphan := e.createBar("orphan", "")
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		settle(t, c)
		r.take()

		steps := []struct {
			name   string
			change func()
			want   []string
		}{
			{"update queues the owner", func() { bar.Value++; bar = e.updateBar(bar) }, []string{"ns/a"}},
			{"change of owner queues old and new owner", func() { bar.Owner = "b"; bar = e.updateBar(bar) }, []string{"ns/a", "ns/b"}},
			{"object without owner queues nothing", func() { orphan.Value++; orphan = e.updateBar(orphan) }, nil},
			{"creation queues the owner", func() { e.createBar("new", "a") }, []string{"ns/a"}},
			{"deletion queues the owner of the last state", func() {
				if _, err := e.bars.Delete("ns/bar"); err != nil {
					t.Fatal(err)
				}
			}, []string{"ns/b"}},
		}
		for _, s := range steps {
			s.change()
			settle(t, c)
			if diff := cmp.Diff(s.want, r.sorted()); diff != "" {
				t.Errorf("%s: reconciled keys mismatch (-want +got):\n%s", s.name, diff)
			}
		}
	})
}

func TestPredicatesFilter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		foo := e.createFoo("a")
		e.createFoo("skip")
		var r recorder
		c := controller.New("foo", r.reconcile, controller.Options[string]{Logger: discard})
		notSkipped := controller.Matching(func(f *Foo) bool { return f.Name != "skip" })
		err := controller.For(c, e.fooInf, notSkipped,
			controller.Or(controller.GenerationChanged[*Foo](), controller.LabelsChanged[*Foo]()))
		if err != nil {
			t.Fatal(err)
		}
		e.run(c)
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
			t.Errorf("initial list: reconciled keys mismatch (-want +got):\n%s", diff)
		}

		steps := []struct {
			name   string
			change func(f *Foo)
			want   []string
		}{
			{"status change is dropped", func(f *Foo) { f.Spec = "status only" }, nil},
			{"annotation change is dropped", func(f *Foo) { f.Annotations = map[string]string{"a": "1"} }, nil},
			{"generation change passes", func(f *Foo) { f.Generation++ }, []string{"ns/a"}},
			{"label change passes", func(f *Foo) { f.Labels = map[string]string{"l": "1"} }, []string{"ns/a"}},
		}
		for _, s := range steps {
			foo = foo.DeepCopy()
			s.change(foo)
			foo = e.updateFoo(foo)
			settle(t, c)
			if diff := cmp.Diff(s.want, r.take()); diff != "" {
				t.Errorf("%s: reconciled keys mismatch (-want +got):\n%s", s.name, diff)
			}
		}
		skip, _ := e.fooInf.Lister().Get("ns", "skip")
		skip = skip.DeepCopy()
		skip.Generation++
		e.updateFoo(skip)
		settle(t, c)
		if got := r.take(); len(got) != 0 {
			t.Errorf("an object Matching rejects was reconciled: %v", got)
		}
	})
}

// fooKey is a controller key of another type than string.
type fooKey struct{ Namespace, Name string }

func splitKey(key string) (fooKey, error) {
	ns, name, err := keys.Split(key)
	return fooKey{ns, name}, err
}

func TestDeletionWithUnknownStateQueuesKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		got := make(chan fooKey, 10)
		c := controller.New("foo", func(_ context.Context, k fooKey) (queue.Result, error) {
			got <- k
			return queue.Result{}, nil
		}, controller.Options[fooKey]{Logger: discard})
		if err := controller.ForKey(c, e.fooInf, splitKey); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		e.factory.Start(ctx)
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		settle(t, c)

		primary := controller.ForHandler[*Foo](c, splitKey)
		secondary := controller.WatchHandler(c, func(b *Bar) []fooKey {
			return []fooKey{{b.Namespace, b.Owner}} // would panic on a nil *Bar
		})
		primary.OnDelete(informer.Deleted[*Foo]{Key: "ns/gone", Inferred: true})
		secondary.OnDelete(informer.Deleted[*Bar]{Key: "ns/bar", Inferred: true})
		settle(t, c)
		if k := <-got; k != (fooKey{"ns", "gone"}) {
			t.Errorf("reconciled %v, want {ns gone}", k)
		}
		if len(got) != 0 {
			t.Errorf("a deletion of a secondary object with no known state queued %v", <-got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
		if err := e.factory.Shutdown(); err != nil {
			t.Error(err)
		}
	})
}

func TestPrimaryDeletionQueuesKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		settle(t, c)
		r.take()
		if _, err := e.foos.Delete("ns/a"); err != nil {
			t.Fatal(err)
		}
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestWorkersStartAfterSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The Bars' list takes 10s: the Foos sync at once, the Bars then.
		e := newEnv(t, memsource.Options[*Bar]{Faults: memsource.Faults{ListDelay: 10 * time.Second, WatchDelay: 10 * time.Second}})
		e.createFoo("a")
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		start := time.Now()
		synctest.Wait()
		if !e.fooInf.HasSynced() || e.barInf.HasSynced() {
			t.Fatalf("informers synced: foos %t, bars %t; want true, false", e.fooInf.HasSynced(), e.barInf.HasSynced())
		}
		if c.HasSynced() {
			t.Error("HasSynced() = true before the Bars synced")
		}
		if got := r.take(); len(got) != 0 {
			t.Errorf("reconciled %v before every watch synced", got)
		}
		settle(t, c)
		if elapsed := time.Since(start); elapsed != 10*time.Second {
			t.Errorf("idle after %v, want 10s", elapsed)
		}
		if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestRunStoppedBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{Faults: memsource.Faults{ListDelay: time.Hour, WatchDelay: time.Hour}})
		e.createFoo("a")
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		stop := e.run(c)
		time.Sleep(time.Minute)
		stop() // Run must return nil
		if got := r.take(); len(got) != 0 {
			t.Errorf("reconciled %v before every watch synced", got)
		}
		if err := c.WaitIdle(t.Context()); !errors.Is(err, controller.ErrStopped) {
			t.Errorf("WaitIdle() after Run = %v, want ErrStopped", err)
		}
	})
}

func TestRunFailsWhenInformerStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		// The factory shuts down before starting the informers: they can
		// never sync.
		if err := e.factory.Shutdown(); err != nil {
			t.Fatal(err)
		}
		err := c.Run(t.Context())
		if !errors.Is(err, informer.ErrNotSynced) || !errors.Is(err, informer.ErrStopped) {
			t.Errorf("Run() = %v, want an error wrapping ErrNotSynced and ErrStopped", err)
		}
	})
}

func TestLiveChangesBeforeInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		for _, name := range []string{"a", "b", "c", "d"} {
			e.createFoo(name)
		}
		release := make(chan struct{})
		r := recorder{result: func(_ context.Context, key string, n int) (queue.Result, error) {
			if key == "ns/a" && n == 1 {
				<-release
			}
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		synctest.Wait() // the worker holds ns/a; b, c, d wait at PriorityLow
		d, _ := e.fooInf.Lister().Get("ns", "d")
		d = d.DeepCopy()
		d.Generation++
		e.updateFoo(d)
		synctest.Wait() // the live update of d is queued at PriorityNormal
		close(release)
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/a", "ns/d", "ns/b", "ns/c"}, r.take()); diff != "" {
			t.Errorf("reconcile order mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestRequeueAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		var mu sync.Mutex
		var at []time.Duration
		start := time.Now()
		r := recorder{result: func(_ context.Context, _ string, n int) (queue.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			at = append(at, time.Since(start))
			if n < 3 {
				return queue.Result{RequeueAfter: 30 * time.Second}, nil
			}
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		settle(t, c) // idle while the requeue waits
		mu.Lock()
		if len(at) != 1 {
			t.Fatalf("reconciled %d times before the delay, want 1", len(at))
		}
		mu.Unlock()
		time.Sleep(time.Hour)
		settle(t, c)
		if diff := cmp.Diff([]time.Duration{0, 30 * time.Second, 60 * time.Second}, at); diff != "" {
			t.Errorf("reconcile times mismatch (-want +got):\n%s", diff)
		}
		s := c.Stats()
		if s.RequeuedAfter != 2 || s.Succeeded != 1 {
			t.Errorf("Stats() RequeuedAfter, Succeeded = %d, %d; want 2, 1", s.RequeuedAfter, s.Succeeded)
		}
	})
}

func TestTerminalErrorNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		invalid := errors.New("invalid spec")
		r := recorder{result: func(context.Context, string, int) (queue.Result, error) {
			return queue.Result{}, queue.TerminalError(invalid)
		}}
		var gaveUp []error
		c := newController(t, e, &r, controller.Options[string]{
			GiveUp: func(_ context.Context, _ string, err error) { gaveUp = append(gaveUp, err) },
		})
		e.run(c)
		settle(t, c)
		time.Sleep(time.Hour)
		settle(t, c)
		if got := r.take(); len(got) != 1 {
			t.Errorf("reconciled %v, want once", got)
		}
		if len(gaveUp) != 1 || !errors.Is(gaveUp[0], invalid) {
			t.Errorf("GiveUp called with %v, want once with the terminal error", gaveUp)
		}
		s := c.Stats()
		if s.TerminalErrors != 1 || s.Errors != 1 {
			t.Errorf("Stats() TerminalErrors, Errors = %d, %d; want 1, 1", s.TerminalErrors, s.Errors)
		}
	})
}

func TestRetryCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		failure := errors.New("failure")
		r := recorder{result: func(context.Context, string, int) (queue.Result, error) {
			return queue.Result{}, failure
		}}
		var gaveUp []error
		c := newController(t, e, &r, controller.Options[string]{
			MaxRetries: 3,
			GiveUp:     func(_ context.Context, _ string, err error) { gaveUp = append(gaveUp, err) },
		})
		e.run(c)
		time.Sleep(time.Hour) // far beyond the backoff of 3 retries
		settle(t, c)
		if got := r.take(); len(got) != 4 {
			t.Errorf("reconciled %d times, want 4 (1 + 3 retries)", len(got))
		}
		if len(gaveUp) != 1 || !errors.Is(gaveUp[0], failure) {
			t.Errorf("GiveUp called with %v, want once with the last error", gaveUp)
		}
		if s := c.Stats(); s.Errors != 4 || s.TerminalErrors != 0 {
			t.Errorf("Stats() Errors, TerminalErrors = %d, %d; want 4, 0", s.Errors, s.TerminalErrors)
		}
	})
}

func TestPanicRecoveredAndCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		r := recorder{result: func(_ context.Context, _ string, n int) (queue.Result, error) {
			if n == 1 {
				panic("boom")
			}
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		time.Sleep(time.Minute) // the retry's backoff
		settle(t, c)
		if got := r.take(); len(got) != 2 {
			t.Errorf("reconciled %d times, want 2 (the panic, then the retry)", len(got))
		}
		s := c.Stats()
		if s.Panics != 1 || s.Errors != 1 || s.Succeeded != 1 || s.ActiveWorkers != 0 {
			t.Errorf("Stats() Panics, Errors, Succeeded, ActiveWorkers = %d, %d, %d, %d; want 1, 1, 1, 0",
				s.Panics, s.Errors, s.Succeeded, s.ActiveWorkers)
		}
	})
}

func TestRunReturnsAfterEverythingExited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		e.createFoo("b")
		running := make(chan struct{}, 2)
		var exited atomic.Int32
		r := recorder{result: func(ctx context.Context, _ string, _ int) (queue.Result, error) {
			running <- struct{}{}
			<-ctx.Done() // a reconcile that ends only with Run
			time.Sleep(time.Second)
			exited.Add(1)
			return queue.Result{}, ctx.Err()
		}}
		c := newController(t, e, &r, controller.Options[string]{MaxConcurrentReconciles: 2})
		stop := e.run(c)
		<-running
		<-running
		stop()
		if n := exited.Load(); n != 2 {
			t.Errorf("Run returned with %d reconciles running", 2-n)
		}
		for _, inf := range []interface{ Stats() informer.Stats }{e.fooInf, e.barInf} {
			if hs := inf.Stats().Handlers; len(hs) != 0 {
				t.Errorf("handlers left on an informer after Run: %v", hs)
			}
		}
	})
}

func TestRunAndWatchErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		var r recorder
		c := controller.New("foo", r.reconcile, controller.Options[string]{Logger: discard})
		if err := c.Run(t.Context()); !errors.Is(err, controller.ErrNoPrimary) {
			t.Errorf("Run() without For = %v, want ErrNoPrimary", err)
		}
		if err := controller.For(c, e.fooInf); err != nil {
			t.Fatal(err)
		}
		if err := controller.For(c, e.fooInf); !errors.Is(err, controller.ErrNoPrimary) {
			t.Errorf("second For() = %v, want ErrNoPrimary", err)
		}
		e.run(c)
		synctest.Wait()
		if err := controller.Watches(c, e.barInf, ownerOf); !errors.Is(err, controller.ErrStarted) {
			t.Errorf("Watches() after Run = %v, want ErrStarted", err)
		}
		if err := c.Run(t.Context()); !errors.Is(err, controller.ErrStarted) {
			t.Errorf("second Run() = %v, want ErrStarted", err)
		}
		if c.Name() != "foo" {
			t.Errorf("Name() = %q, want foo", c.Name())
		}
	})
}

func TestWaitIdleContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		release := make(chan struct{})
		r := recorder{result: func(context.Context, string, int) (queue.Result, error) {
			<-release
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		if err := c.WaitIdle(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitIdle() with a reconcile running = %v, want DeadlineExceeded", err)
		}
		if elapsed := time.Since(start); elapsed != time.Minute {
			t.Errorf("WaitIdle returned after %v, want 1m", elapsed)
		}
		close(release)
		settle(t, c)
		if got := r.take(); !slices.Equal(got, []string{"ns/a"}) {
			t.Errorf("reconciled %v, want [ns/a]", got)
		}
	})
}

func TestZeroController(t *testing.T) {
	e := newEnv(t, memsource.Options[*Bar]{})
	var c controller.Controller[string]
	errs := map[string]error{
		"Run":      c.Run(t.Context()),
		"For":      controller.For(&c, e.fooInf),
		"Watches":  controller.Watches(&c, e.barInf, ownerOf),
		"WaitIdle": c.WaitIdle(t.Context()),
	}
	for name, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "New") {
			t.Errorf("%s on a zero Controller = %v, want an error naming New", name, err)
		}
	}
	if c.HasSynced() {
		t.Error("HasSynced() on a zero Controller = true")
	}
	if hs := e.fooInf.Stats().Handlers; len(hs) != 0 {
		t.Errorf("a zero Controller registered handlers: %v", hs)
	}
}

func TestControllerAddedToRunningInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		e.createBar("a-0", "a")
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		e.factory.Start(ctx)
		if err := e.factory.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		// The handlers, added late, receive a replay of the caches.
		var r recorder
		c := newController(t, e, &r, controller.Options[string]{})
		e.run(c)
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
		e.createFoo("b")
		settle(t, c)
		if diff := cmp.Diff([]string{"ns/b"}, r.take()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
	})
}
