package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

// TestMain turns the cache mutation detector on for every informer of the
// tests, unless the environment says otherwise, then checks for leaks.
func TestMain(m *testing.M) {
	detectortest.DefaultOn()
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, nil); err != nil {
		t.Fatalf("run() = %v", err)
	}
	// Three keys, each failed once and then succeeded. (Adds are not
	// checked: the queue's timer counts a retry's add just after queueing
	// it, so a worker may finish the item before the add is counted.)
	for _, line := range []string{
		`informer_cached_objects{name="configs"} 3`,
		`informer_handler_notifications_total{handler="enqueue",name="configs"} 3`,
		`reflector_lists_total{name="configs"} 1`,
		`workqueue_retries_total{name="configs"} 3`,
		`workqueue_processed_total{name="configs",outcome="failed"} 3`,
		`workqueue_processed_total{name="configs",outcome="succeeded"} 3`,
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("run() printed no line %q; got:\n%s", line, out.String())
		}
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- run(ctx, io.Discard, ln) }()
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("run() = %v", err)
		}
	}()
	// The listener is open: the request waits in its backlog until the
	// server accepts it.
	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `# TYPE workqueue_depth gauge`) {
		t.Errorf("GET /metrics returned no workqueue_depth:\n%s", body)
	}
}
