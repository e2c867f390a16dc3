package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typedcache/typedcache/queue"
)

func TestProvider(t *testing.T) {
	reg := prometheus.NewRegistry()
	provider, err := NewProvider(reg)
	if err != nil {
		t.Fatal(err)
	}
	limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Hour, time.Hour) // c stays pending
	q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{Name: "test", Metrics: provider.NewMetrics, Logger: slog.New(slog.DiscardHandler)})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a") // collapsed
	item, err := q.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q.AddRateLimited("c")

	if got := testutil.ToFloat64(provider.adds.WithLabelValues("test")); got != 2 {
		t.Errorf("workqueue_adds_total = %v, want 2", got)
	}
	if got := testutil.ToFloat64(provider.retries.WithLabelValues("test")); got != 1 {
		t.Errorf("workqueue_retries_total = %v, want 1", got)
	}
	if n := testutil.CollectAndCount(provider.latency); n != 1 {
		t.Errorf("queue_duration_seconds has %d series, want 1", n)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	depth := -1.0
	for _, mf := range families {
		if mf.GetName() == "workqueue_depth" {
			depth = mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	if depth != 1 {
		t.Errorf("workqueue_depth = %v, want 1 (b queued, a processing)", depth)
	}
	q.Done(item)

	// What Run reports is counted by outcome.
	q.Add("d")
	q.ShutDown()
	process := func(context.Context, string) (queue.Result, error) { return queue.Result{}, queue.TerminalError(nil) }
	if err := q.Run(context.Background(), process, queue.RunOptions[string]{}); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(provider.processed.WithLabelValues("test", "terminal")); got != 2 {
		t.Errorf(`workqueue_processed_total{outcome="terminal"} = %v, want 2 (b and d)`, got)
	}

	// A second queue with the same name keeps working; only its gauges are
	// not exported.
	queue.New[string](queue.Options{Name: "test", Metrics: provider.NewMetrics}).Add("x")
}

func TestRun(t *testing.T) {
	if err := run(); err != nil {
		t.Fatalf("run() = %v", err)
	}
}
