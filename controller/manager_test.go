package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// runManager runs m on a goroutine and returns a channel that receives
// Run's result.
func runManager(ctx context.Context, m *controller.Manager) <-chan error {
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return done
}

// TestRunStartsAfterSyncAndStopsEverything: the runnables start only once
// the informers have synced, and Run returns nil when its context ends,
// after every runnable has returned.
func TestRunStartsAfterSyncAndStopsEverything(t *testing.T) {
	src := memsource.New(memsource.Options[*Pod]{})
	if _, err := src.Create(&Pod{Namespace: "ns", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	factory := informer.NewFactory(informer.FactoryOptions{})
	pods := informer.For(factory, src)
	m := controller.NewManager(factory, controller.ManagerOptions{})
	a, b := newFake("a"), newFake("b")
	b.always = true
	var cachedAtStart int
	a.atStart = func() { cachedAtStart = pods.Cache().Len() }
	for _, r := range []controller.Runnable{a, b} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := runManager(ctx, m)
	<-a.started
	<-b.started
	if cachedAtStart != 1 {
		t.Errorf("a started with %d cached objects, want 1: started before the informers synced", cachedAtStart)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if !isClosed(a.exited) || !isClosed(b.exited) {
		t.Errorf("Run returned before the runnables: a exited %v, b exited %v", isClosed(a.exited), isClosed(b.exited))
	}
	if err := m.Run(context.Background()); !errors.Is(err, controller.ErrStarted) {
		t.Errorf("second Run = %v, want ErrStarted", err)
	}
	if err := m.Add(newFake("late")); !errors.Is(err, controller.ErrStarted) {
		t.Errorf("Add after Run = %v, want ErrStarted", err)
	}
}

// TestFirstErrorStopsTheRest: a runnable's error stops the others and is
// returned, wrapped with the runnable's name; an error another runnable
// returns while stopping is joined to it; a runnable returning its
// context's error is taken to have stopped cleanly.
func TestFirstErrorStopsTheRest(t *testing.T) {
	m := controller.NewManager(nil, controller.ManagerOptions{})
	a, b, c := newFake("a"), newFake("b"), newFake("c")
	errStop := errors.New("could not stop cleanly")
	b.stopErr = errStop
	c.stopErr = context.Canceled
	for _, r := range []controller.Runnable{a, b, c} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	done := runManager(context.Background(), m)
	<-a.started
	<-b.started
	<-c.started
	a.fail <- errBoom
	err := <-done
	if !errors.Is(err, errBoom) || !errors.Is(err, errStop) || errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want errBoom and errStop joined, without context.Canceled", err)
	}
	if !strings.HasPrefix(err.Error(), "controller: a: boom\n") {
		t.Errorf("Run = %q, want the first error first, naming a", err)
	}
	if !isClosed(b.exited) || !isClosed(c.exited) {
		t.Error("Run returned before the other runnables")
	}
}

// TestRunnableReturningNilKeepsTheOthers: a runnable that finishes its
// work before the context ends does not stop the manager.
func TestRunnableReturningNilKeepsTheOthers(t *testing.T) {
	m := controller.NewManager(nil, controller.ManagerOptions{})
	once := controller.RunnableFunc(func(context.Context) error { return nil })
	a := newFake("a")
	for _, r := range []controller.Runnable{once, a} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := runManager(ctx, m)
	<-a.started
	a.fail <- nil
	<-a.exited
	select {
	case err := <-done:
		t.Fatalf("Run returned %v after its runnables returned nil, want it to run until ctx ends", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// TestSyncFailure: an informer that cannot sync (its mutation detector
// cannot copy objects) fails Run without starting the runnables, and its
// own error is joined to the failed sync.
func TestSyncFailure(t *testing.T) {
	type noCopy struct{ Pod }
	factory := informer.NewFactory(informer.FactoryOptions{})
	src := memsource.New(memsource.Options[*noCopy]{Clone: func(p *noCopy) *noCopy { c := *p; return &c }})
	informer.ForWithOptions(factory, src, informer.Options[*noCopy]{MutationDetector: informer.MutationDetector[*noCopy]{Enabled: true}})
	m := controller.NewManager(factory, controller.ManagerOptions{})
	a := newFake("a")
	if err := m.Add(a); err != nil {
		t.Fatal(err)
	}
	err := m.Run(context.Background())
	if !errors.Is(err, informer.ErrNotSynced) || !errors.Is(err, informer.ErrCannotCopy) {
		t.Errorf("Run = %v, want the failed sync and ErrCannotCopy", err)
	}
	if isClosed(a.started) {
		t.Error("a runnable started although the sync failed")
	}
}

// TestMutationErrorJoined: a runnable's error and the mutation detector's
// finding, reported when the informers stop, are both returned.
func TestMutationErrorJoined(t *testing.T) {
	factory := informer.NewFactory(informer.FactoryOptions{})
	src := memsource.New(memsource.Options[*Pod]{})
	if _, err := src.Create(&Pod{Namespace: "ns", Name: "a", Image: "v1"}); err != nil {
		t.Fatal(err)
	}
	detect := informer.MutationDetector[*Pod]{Enabled: true, Period: time.Hour}
	pods := informer.ForWithOptions(factory, src, informer.Options[*Pod]{
		MutationDetector: detect,
		ErrorHandler:     func(context.Context, error) {}, // Run returns it
	})
	m := controller.NewManager(factory, controller.ManagerOptions{})
	if err := m.Add(controller.RunnableFunc(func(context.Context) error {
		for _, p := range pods.Cache().List() {
			p.Image = "v2" // a bug: the object is the cache's
		}
		return errBoom
	})); err != nil {
		t.Fatal(err)
	}
	err := m.Run(context.Background())
	if !errors.Is(err, errBoom) {
		t.Errorf("Run = %v, want errBoom", err)
	}
	if me, ok := errors.AsType[*informer.CacheMutationError](err); !ok || me.Key != "ns/a" {
		t.Errorf("Run = %v, want a *CacheMutationError for ns/a", err)
	}
}

// TestShutdownTimeoutNamesStuckRunnable: a runnable that does not return
// within the graceful shutdown timeout of its context's end is named in
// Run's error, returned at the timeout.
func TestShutdownTimeoutNamesStuckRunnable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 5 * time.Second
		m := controller.NewManager(nil, controller.ManagerOptions{GracefulShutdownTimeout: timeout})
		stuck, fine := newFake("stuck"), newFake("fine")
		stuck.release = make(chan struct{})
		for _, r := range []controller.Runnable{stuck, fine} {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runManager(ctx, m)
		<-stuck.started
		<-fine.started
		cancel()
		start := time.Now()
		err := <-done
		if waited := time.Since(start); waited != timeout {
			t.Errorf("Run returned %v after ctx ended, want %v", waited, timeout)
		}
		if !errors.Is(err, controller.ErrShutdownTimeout) || !strings.Contains(err.Error(), "still running: stuck") || strings.Contains(err.Error(), "fine") {
			t.Errorf("Run = %v, want ErrShutdownTimeout naming stuck only", err)
		}
		close(stuck.release)
		<-stuck.exited
	})
}

// TestNoShutdownTimeout: with a negative timeout Run waits as long as a
// runnable takes.
func TestNoShutdownTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := controller.NewManager(nil, controller.ManagerOptions{GracefulShutdownTimeout: -1})
		slow := newFake("slow")
		slow.release = make(chan struct{})
		if err := m.Add(slow); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runManager(ctx, m)
		<-slow.started
		cancel()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before its runnable", err)
		default:
		}
		close(slow.release)
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	})
}

// TestShutdownTimeoutNamesInformers: informers that do not stop within
// what remains of the timeout after the runnables stopped (a handler call
// that does not return) are named too.
func TestShutdownTimeoutNamesInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 5 * time.Second
		src := memsource.New(memsource.Options[*Pod]{})
		if _, err := src.Create(&Pod{Namespace: "ns", Name: "a"}); err != nil {
			t.Fatal(err)
		}
		factory := informer.NewFactory(informer.FactoryOptions{})
		release, handling := make(chan struct{}), make(chan struct{})
		if _, err := informer.For(factory, src).AddEventHandler(informer.HandlerFuncs[*Pod]{
			AddFunc: func(*Pod, bool) {
				close(handling)
				<-release
			},
		}); err != nil {
			t.Fatal(err)
		}
		m := controller.NewManager(factory, controller.ManagerOptions{GracefulShutdownTimeout: timeout})
		ctx, cancel := context.WithCancel(t.Context())
		done := runManager(ctx, m)
		<-handling
		cancel()
		err := <-done
		if !errors.Is(err, controller.ErrShutdownTimeout) || !strings.HasSuffix(err.Error(), "still running: informers") {
			t.Errorf("Run = %v, want ErrShutdownTimeout naming the informers", err)
		}
		close(release)
		synctest.Wait()
	})
}
