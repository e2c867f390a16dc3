package queue_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Run retries failures with backoff, forgets successes and returns nil once
// the queue has shut down and drained.
func TestRunRetriesAndForgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
		q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{Logger: discard()})
		start := time.Now()
		var mu sync.Mutex
		var log []string
		fails := map[string]int{"a": 2, "b": 0}
		process := func(ctx context.Context, item string) (queue.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			log = append(log, item+"@"+time.Since(start).String())
			if fails[item] > 0 {
				fails[item]--
				return queue.Result{}, errors.New("not yet")
			}
			return queue.Result{}, nil
		}
		q.Add("a")
		q.Add("b")
		errc := make(chan error)
		go func() { errc <- q.Run(context.Background(), process, queue.RunOptions[string]{Workers: 2}) }()
		time.Sleep(time.Hour)
		synctest.Wait()
		if err := q.ShutDownWithDrain(context.Background()); err != nil {
			t.Fatalf("ShutDownWithDrain() = %v", err)
		}
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil after shutdown", err)
		}
		slices.Sort(log) // the two workers start a and b in either order
		want := []string{"a@0s", "a@1s", "a@3s", "b@0s"}
		if diff := cmp.Diff(want, log); diff != "" {
			t.Errorf("process calls mismatch (-want +got):\n%s", diff)
		}
		if n := q.NumRequeues("a"); n != 0 {
			t.Errorf("NumRequeues(a) = %d, want 0 after success", n)
		}
	})
}

// A panic in process is recovered, logged with its stack, and the item is
// retried; the worker survives.
func TestRunRecoversPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&buf, nil))
		limiter := queue.NewTypedItemExponentialFailureRateLimiter[int](time.Second, time.Minute)
		q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{Name: "panicky", Logger: logger})
		var calls atomic.Int32
		cause := errors.New("boom")
		process := func(ctx context.Context, item int) (queue.Result, error) {
			if calls.Add(1) == 1 {
				panic(cause)
			}
			return queue.Result{}, nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() { errc <- q.Run(ctx, process, queue.RunOptions[int]{}) }()
		q.Add(1)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil when ctx ends", err)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("process called %d times, want 2 (panic, then retry)", n)
		}
		out := buf.String()
		for _, want := range []string{"panicked", "queue=panicky", "item=1", "queue: process panicked: boom", "worker_test.go"} {
			if !strings.Contains(out, want) {
				t.Errorf("log %q does not contain %q", out, want)
			}
		}
		q.ShutDown()
	})
}

func TestPanicError(t *testing.T) {
	cause := errors.New("boom")
	synctest.Test(t, func(t *testing.T) {
		var got error
		logger := slog.New(errorCapture{&got})
		q := queue.NewTypedRateLimitingQueue[int](nil, queue.Options{Logger: logger})
		q.Add(1)
		q.ShutDown()
		err := q.Run(context.Background(), func(context.Context, int) (queue.Result, error) { panic(cause) }, queue.RunOptions[int]{})
		if err != nil {
			t.Fatalf("Run() = %v", err)
		}
		p, ok := errors.AsType[*queue.ProcessPanicError](got)
		if !ok {
			t.Fatalf("reported error %v is not a *ProcessPanicError", got)
		}
		if !errors.Is(got, cause) || p.Value != "boom" || p.Error() != "queue: process panicked: boom" || len(p.Stack) == 0 {
			t.Errorf("ProcessPanicError = %q (Is cause: %v, stack %d bytes)", p.Error(), errors.Is(got, cause), len(p.Stack))
		}
	})
}

// errorCapture is a slog handler that keeps the "error" attribute.
type errorCapture struct{ err *error }

func (h errorCapture) Enabled(context.Context, slog.Level) bool { return true }
func (h errorCapture) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if e, ok := a.Value.Any().(error); ok && a.Key == "error" {
			*h.err = e
		}
		return true
	})
	return nil
}
func (h errorCapture) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h errorCapture) WithGroup(string) slog.Handler      { return h }

// Cancelling ctx makes Run return with no goroutine left (goleak checks),
// idle and busy workers alike, and the interrupted item is retried later.
func TestRunStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedRateLimitingQueue(queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Second), queue.Options{Logger: discard()})
		defer q.ShutDown()
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		process := func(ctx context.Context, item string) (queue.Result, error) {
			close(started)
			<-ctx.Done()
			return queue.Result{}, ctx.Err()
		}
		q.Add("a")
		errc := make(chan error)
		go func() { errc <- q.Run(ctx, process, queue.RunOptions[string]{Workers: 4}) }()
		<-started
		synctest.Wait()
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil when ctx ends", err)
		}
		if diff := cmp.Diff(queue.State{Waiting: 1, Slots: 1}, q.State()); diff != "" {
			t.Errorf("State() after Run mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestRunInvalidArguments(t *testing.T) {
	q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{})
	defer q.ShutDown()
	noop := func(context.Context, string) (queue.Result, error) { return queue.Result{}, nil }
	if err := q.Run(context.Background(), noop, queue.RunOptions[string]{Workers: -1}); err == nil || !strings.Contains(err.Error(), "Workers must not be negative") {
		t.Errorf("Run(-1 workers) = %v, want an error", err)
	}
	if err := q.Run(context.Background(), nil, queue.RunOptions[string]{}); err == nil || !strings.Contains(err.Error(), "process function") {
		t.Errorf("Run(nil process) = %v, want an error", err)
	}
}

// Many workers on few hot items: no item is ever processed by two workers
// at once, and every add is followed by at least one processing.
func TestRunNeverConcurrentPerItem(t *testing.T) {
	const items, adds, workers = 8, 4000, 8
	q := queue.NewTypedRateLimitingQueue[int](nil, queue.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var busy [items]atomic.Int32
	var last [items]atomic.Int64 // sequence number of the last add seen by a processing
	var seq [items]atomic.Int64
	process := func(ctx context.Context, item int) (queue.Result, error) {
		if busy[item].Add(1) != 1 {
			t.Errorf("item %d processed by two workers at once", item)
		}
		last[item].Store(seq[item].Load())
		busy[item].Add(-1)
		return queue.Result{}, nil
	}
	errc := make(chan error)
	go func() { errc <- q.Run(context.Background(), process, queue.RunOptions[int]{Workers: workers}) }()
	for i := range adds {
		seq[i%items].Add(1)
		q.Add(i % items)
	}
	if err := q.ShutDownWithDrain(context.Background()); err != nil {
		t.Fatalf("ShutDownWithDrain() = %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run() = %v", err)
	}
	for i := range items {
		if last[i].Load() != seq[i].Load() {
			t.Errorf("item %d: last processing saw add #%d, want #%d", i, last[i].Load(), seq[i].Load())
		}
	}
}

// A queue without a name logs no queue attribute rather than queue="".
func TestRunLogsNameOnlyIfSet(t *testing.T) {
	for _, name := range []string{"", "pods"} {
		t.Run("name="+name, func(t *testing.T) {
			var buf bytes.Buffer
			q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{Name: name, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
			q.Add("a")
			q.ShutDown()
			fail := func(context.Context, string) (queue.Result, error) { return queue.Result{}, queue.TerminalError(nil) }
			if err := q.Run(context.Background(), fail, queue.RunOptions[string]{}); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			out := buf.String()
			if got, want := strings.Contains(out, "queue="), name != ""; got != want || !strings.Contains(out, "item=a") {
				t.Errorf("log %q: has a queue attribute: %v, want %v", out, got, want)
			}
		})
	}
}
