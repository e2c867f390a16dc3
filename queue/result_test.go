package queue_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// runStep is what process returns on one call.
type runStep struct {
	res queue.Result
	err error
}

var (
	errRace = errors.New("conflict")
	errDown = errors.New("dependency down")
)

// routine logs conflicts at Debug and everything else at Error.
func routine(err error) slog.Level {
	if errors.Is(err, errRace) {
		return slog.LevelDebug
	}
	return slog.LevelError
}

// What Run does with the item after each result: when it calls process
// again, what it reports to the metrics, to GiveUp and to the log.
func TestRunResults(t *testing.T) {
	tests := []struct {
		name   string
		opts   queue.RunOptions[string]
		steps  []runStep // process returns these in turn, then a zero Result
		calls  []string
		outs   []string
		gaveUp []string
		logs   []string
	}{{
		name:  "success forgets",
		steps: []runStep{{}},
		calls: []string{"0s"},
		outs:  []string{"succeeded"},
	}, {
		name:  "RequeueAfter adds the item again after the delay, without a log",
		steps: []runStep{{res: queue.Result{RequeueAfter: 30 * time.Second}}, {res: queue.Result{RequeueAfter: 30 * time.Second}}},
		calls: []string{"0s", "30s", "1m0s"},
		outs:  []string{"requeued", "requeued", "succeeded"},
	}, {
		name:  "a Result with an error is ignored: backoff, not RequeueAfter",
		steps: []runStep{{res: queue.Result{RequeueAfter: time.Hour}, err: errDown}},
		calls: []string{"0s", "1s"},
		outs:  []string{"failed", "succeeded"},
		logs:  []string{"ERROR queue: processing failed, retrying: dependency down"},
	}, {
		name:   "a terminal error is reported once and not retried",
		opts:   queue.RunOptions[string]{MaxRetries: 5},
		steps:  []runStep{{err: queue.TerminalError(errors.New("bad spec"))}},
		calls:  []string{"0s"},
		outs:   []string{"terminal"},
		gaveUp: []string{"a: bad spec (terminal: true)"},
		logs:   []string{"ERROR queue: terminal error, not retrying: bad spec"},
	}, {
		name:   "an error wrapping ErrTerminal is terminal",
		steps:  []runStep{{err: fmt.Errorf("validate: %w", queue.ErrTerminal)}},
		calls:  []string{"0s"},
		outs:   []string{"terminal"},
		gaveUp: []string{"a: validate: queue: terminal error (terminal: true)"},
		logs:   []string{"ERROR queue: terminal error, not retrying: validate: queue: terminal error"},
	}, {
		name:   "MaxRetries gives up after that many retries, once",
		opts:   queue.RunOptions[string]{MaxRetries: 2},
		steps:  []runStep{{err: errDown}, {err: errDown}, {err: errDown}},
		calls:  []string{"0s", "1s", "3s"},
		outs:   []string{"failed", "failed", "gave_up"},
		gaveUp: []string{"a: dependency down (terminal: false)"},
		logs: []string{
			"ERROR queue: processing failed, retrying: dependency down",
			"ERROR queue: processing failed, retrying: dependency down",
			"ERROR queue: giving up after retries: dependency down",
		},
	}, {
		name:  "without MaxRetries failures are retried until they succeed",
		steps: []runStep{{err: errDown}, {err: errDown}, {err: errDown}},
		calls: []string{"0s", "1s", "3s", "7s"},
		outs:  []string{"failed", "failed", "failed", "succeeded"},
		logs: []string{
			"ERROR queue: processing failed, retrying: dependency down",
			"ERROR queue: processing failed, retrying: dependency down",
			"ERROR queue: processing failed, retrying: dependency down",
		},
	}, {
		name:  "a success resets the retry count",
		opts:  queue.RunOptions[string]{MaxRetries: 1},
		steps: []runStep{{err: errDown}, {res: queue.Result{RequeueAfter: time.Minute}}, {err: errDown}},
		calls: []string{"0s", "1s", "1m1s", "1m2s"},
		outs:  []string{"failed", "requeued", "failed", "succeeded"},
		logs: []string{
			"ERROR queue: processing failed, retrying: dependency down",
			"ERROR queue: processing failed, retrying: dependency down",
		},
	}, {
		name:  "ErrorLevel picks the level of retried errors",
		opts:  queue.RunOptions[string]{ErrorLevel: routine},
		steps: []runStep{{err: fmt.Errorf("update a: %w", errRace)}, {err: errDown}},
		calls: []string{"0s", "1s", "3s"},
		outs:  []string{"failed", "failed", "succeeded"},
		logs: []string{
			"DEBUG queue: processing failed, retrying: update a: conflict",
			"ERROR queue: processing failed, retrying: dependency down",
		},
	}, {
		name:   "ErrorLevel picks the level of terminal errors",
		opts:   queue.RunOptions[string]{ErrorLevel: routine},
		steps:  []runStep{{err: queue.TerminalError(errRace)}},
		calls:  []string{"0s"},
		outs:   []string{"terminal"},
		gaveUp: []string{"a: conflict (terminal: true)"},
		logs:   []string{"DEBUG queue: terminal error, not retrying: conflict"},
	}, {
		name:   "a give-up is logged at Error whatever ErrorLevel says",
		opts:   queue.RunOptions[string]{ErrorLevel: routine, MaxRetries: 1},
		steps:  []runStep{{err: errRace}, {err: errRace}},
		calls:  []string{"0s", "1s"},
		outs:   []string{"failed", "gave_up"},
		gaveUp: []string{"a: conflict (terminal: false)"},
		logs: []string{
			"DEBUG queue: processing failed, retrying: conflict",
			"ERROR queue: giving up after retries: conflict",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs logRecorder
				var outs outcomeRecorder
				limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour)
				q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{
					Logger:  slog.New(&logs),
					Metrics: outs.newMetrics,
				})
				defer q.ShutDown()
				start := time.Now()
				var mu sync.Mutex
				var calls, gaveUp []string
				process := func(_ context.Context, item string) (queue.Result, error) {
					mu.Lock()
					defer mu.Unlock()
					n := len(calls)
					calls = append(calls, time.Since(start).String())
					if n < len(tt.steps) {
						return tt.steps[n].res, tt.steps[n].err
					}
					return queue.Result{}, nil
				}
				opts := tt.opts
				opts.GiveUp = func(_ context.Context, item string, err error) {
					mu.Lock()
					defer mu.Unlock()
					gaveUp = append(gaveUp, fmt.Sprintf("%s: %v (terminal: %v)", item, err, errors.Is(err, queue.ErrTerminal)))
				}
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error)
				go func() { errc <- q.Run(ctx, process, opts) }()
				q.Add("a")
				time.Sleep(24 * time.Hour)
				synctest.Wait()
				cancel()
				if err := <-errc; err != nil {
					t.Errorf("Run() = %v, want nil when ctx ends", err)
				}
				for _, c := range []struct {
					what      string
					want, got []string
				}{
					{"process calls", tt.calls, calls},
					{"outcomes", tt.outs, outs.get()},
					{"GiveUp calls", tt.gaveUp, gaveUp},
					{"log records", tt.logs, logs.get()},
				} {
					if diff := cmp.Diff(c.want, c.got); diff != "" {
						t.Errorf("%s mismatch (-want +got):\n%s", c.what, diff)
					}
				}
			})
		})
	}
}

// The end of Run's context is not the item's failure: an item interrupted
// by it is retried later, logged at Debug and never given up on.
func TestRunInterruptedIsNotGivenUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logRecorder
		var outs outcomeRecorder
		q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{Logger: slog.New(&logs), Metrics: outs.newMetrics})
		defer q.ShutDown()
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		process := func(ctx context.Context, _ string) (queue.Result, error) {
			close(started)
			<-ctx.Done()
			return queue.Result{}, fmt.Errorf("wait for dependency: %w", ctx.Err())
		}
		giveUp := func(context.Context, string, error) { t.Error("GiveUp called for an interrupted item") }
		q.Add("a")
		errc := make(chan error)
		go func() { errc <- q.Run(ctx, process, queue.RunOptions[string]{MaxRetries: 1, GiveUp: giveUp}) }()
		<-started
		q.AddRateLimited("a") // a retry already counted: MaxRetries is reached
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil when ctx ends", err)
		}
		if diff := cmp.Diff([]string{"failed"}, outs.get()); diff != "" {
			t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
		}
		want := []string{"DEBUG queue: processing failed, retrying: wait for dependency: context canceled"}
		if diff := cmp.Diff(want, logs.get()); diff != "" {
			t.Errorf("log records mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestTerminalError(t *testing.T) {
	cause := errors.New("bad spec")
	tests := []struct {
		name string
		err  error
		msg  string
		is   []error
	}{
		{"wraps its cause", queue.TerminalError(cause), "bad spec", []error{cause, queue.ErrTerminal}},
		{"nil is ErrTerminal itself", queue.TerminalError(nil), "queue: terminal error", []error{queue.ErrTerminal}},
		{"wrapped again", fmt.Errorf("reconcile: %w", queue.TerminalError(cause)), "reconcile: bad spec", []error{cause, queue.ErrTerminal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.msg {
				t.Errorf("Error() = %q, want %q", got, tt.msg)
			}
			for _, target := range tt.is {
				if !errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", tt.err, target)
				}
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	var got []string
	for o := range queue.GaveUp + 2 {
		got = append(got, o.String())
	}
	want := []string{"succeeded", "requeued", "failed", "terminal", "gave_up", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Outcome.String() mismatch (-want +got):\n%s", diff)
	}
}

// logRecorder is a slog handler that keeps "LEVEL message: error" of each
// record.
type logRecorder struct {
	mu   sync.Mutex
	recs []string
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var msg string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" {
			msg = a.Value.String()
		}
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Level.String()+" "+r.Message+": "+msg)
	return nil
}
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecorder) WithGroup(string) slog.Handler      { return h }

func (h *logRecorder) get() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recs
}

// outcomeRecorder is a Metrics that keeps the outcomes Run reports.
type outcomeRecorder struct {
	mu   sync.Mutex
	outs []string
}

func (m *outcomeRecorder) newMetrics(string, func() queue.MetricsSnapshot) queue.Metrics { return m }
func (m *outcomeRecorder) Added()                                                        {}
func (m *outcomeRecorder) Started(time.Duration)                                         {}
func (m *outcomeRecorder) Finished(time.Duration)                                        {}
func (m *outcomeRecorder) Retried()                                                      {}
func (m *outcomeRecorder) Processed(o queue.Outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outs = append(m.outs, o.String())
}

func (m *outcomeRecorder) get() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.outs
}
