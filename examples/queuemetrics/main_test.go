package main

import (
	"context"
	"testing"

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
	q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{Name: "test", Metrics: provider.NewMetrics})
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

	// A second queue with the same name keeps working; only its gauges are
	// not exported.
	queue.New[string](queue.Options{Name: "test", Metrics: provider.NewMetrics}).Add("x")
}

func TestRun(t *testing.T) {
	if err := run(); err != nil {
		t.Fatalf("run() = %v", err)
	}
}
