package controller_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// TestReadyz: /readyz fails until the informers have synced and every
// running Syncer has, passes then, and fails again once Run stops, while
// /healthz passes throughout.
func TestReadyz(t *testing.T) {
	lis, client, url := loopback(t)
	src := gatedSource{memsource.New(memsource.Options[*Pod]{}), make(chan struct{})}
	factory := informer.NewFactory(informer.FactoryOptions{})
	informer.For(factory, src)
	m := controller.NewManager(factory, controller.ManagerOptions{Listener: lis})
	a := newFake("a")
	a.release = make(chan struct{})
	if err := m.Add(a); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := runManager(ctx, m)

	check := func(when string, wantCode int, wantBody string) {
		t.Helper()
		code, body := get(t, client, url+"/readyz")
		if code != wantCode || body != wantBody {
			t.Errorf("%s: GET /readyz = %d %q, want %d %q", when, code, body, wantCode, wantBody)
		}
		if code, _ := get(t, client, url+"/healthz"); code != http.StatusOK {
			t.Errorf("%s: GET /healthz = %d, want 200", when, code)
		}
	}
	check("informers syncing", 500, "[-]manager failed: informers not synced\n[+]runnables ok\nreadyz check failed\n")
	close(src.open)
	<-a.started
	check("a not synced", 500, "[+]manager ok\n[-]runnables failed: not synced: a\nreadyz check failed\n")
	a.synced.Store(true)
	check("a synced", 200, "ok")
	if code, body := get(t, client, url+"/readyz?verbose"); code != 200 || body != "[+]manager ok\n[+]runnables ok\nreadyz check passed\n" {
		t.Errorf("GET /readyz?verbose = %d %q", code, body)
	}
	cancel()
	<-a.ctxDone // Run is stopping; a keeps it from ending
	check("stopping", 500, "[-]manager failed: stopping\n[+]runnables ok\nreadyz check failed\n")
	close(a.release)
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if _, err := client.Get(url + "/healthz"); err == nil {
		t.Error("the server still answers after Run returned")
	}
}

// TestChecks: checks added with AddHealthzCheck and AddReadyzCheck are
// served with the others and one at a time; names must be unique.
func TestChecks(t *testing.T) {
	lis, client, url := loopback(t)
	m := controller.NewManager(nil, controller.ManagerOptions{Listener: lis})
	dbDown := errors.New("db down")
	for _, add := range []func(string, controller.Checker) error{m.AddHealthzCheck, m.AddReadyzCheck} {
		if err := add("ping", func(*http.Request) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := add("db", func(*http.Request) error { return dbDown }); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"", "a/b", "db"} {
			if err := add(bad, func(*http.Request) error { return nil }); err == nil {
				t.Errorf("adding a check named %q succeeded, want an error", bad)
			}
		}
		if err := add("nil", nil); err == nil {
			t.Error("adding a nil check succeeded, want an error")
		}
	}
	if err := m.AddReadyzCheck("runnables", func(*http.Request) error { return nil }); err == nil {
		t.Error("a readiness check took a built-in check's name")
	}
	a := newFake("a")
	a.synced.Store(true)
	if err := m.Add(a); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := runManager(ctx, m)
	<-a.started

	type answer struct {
		Code int
		Body string
	}
	want := map[string]answer{
		"/healthz":          {500, "[+]ping ok\n[-]db failed: db down\nhealthz check failed\n"},
		"/healthz/ping":     {200, "ok"},
		"/healthz/db":       {500, "internal server error: db down\n"},
		"/healthz/nope":     {404, "404 page not found\n"},
		"/readyz":           {500, "[+]manager ok\n[+]runnables ok\n[+]ping ok\n[-]db failed: db down\nreadyz check failed\n"},
		"/readyz/runnables": {200, "ok"},
		"/readyz/db":        {500, "internal server error: db down\n"},
		"/metrics":          {404, "404 page not found\n"},
	}
	got := map[string]answer{}
	for path := range want {
		code, body := get(t, client, url+path)
		got[path] = answer{code, body}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET mismatch (-want +got):\n%s", diff)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// TestMetrics: ManagerOptions.Metrics serves /metrics on the same
// listener.
func TestMetrics(t *testing.T) {
	lis, client, url := loopback(t)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("workqueue_depth 0\n"))
	})
	m := controller.NewManager(nil, controller.ManagerOptions{Listener: lis, Metrics: metrics})
	ready := make(chan struct{})
	if err := m.Add(controller.RunnableFunc(func(ctx context.Context) error {
		close(ready)
		<-ctx.Done()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := runManager(ctx, m)
	<-ready
	if code, body := get(t, client, url+"/metrics"); code != 200 || body != "workqueue_depth 0\n" {
		t.Errorf("GET /metrics = %d %q, want the handler's answer", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

// TestListenError: an address that cannot be listened on fails Run at
// once.
func TestListenError(t *testing.T) {
	lis, _, _ := loopback(t)
	defer lis.Close()
	m := controller.NewManager(nil, controller.ManagerOptions{Addr: lis.Addr().String()})
	if err := m.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("Run on a busy address = %v, want a listen error", err)
	}
}
