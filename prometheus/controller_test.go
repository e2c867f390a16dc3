package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

func TestControllerMetrics(t *testing.T) {
	reg := promclient.NewRegistry()
	p, err := prometheus.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	// A controller's counters as its Stats reports them.
	bounds := []float64{0.005, 0.01}
	p.Controller("foo", func() controller.Stats {
		return controller.Stats{
			Succeeded: 5, RequeuedAfter: 2, Errors: 3, TerminalErrors: 1, Panics: 1,
			ReconcileTime: controller.Histogram{
				Bounds: bounds, Counts: []uint64{7, 9}, Count: 11, Sum: 1500 * time.Millisecond,
			},
			MaxConcurrentReconciles: 4,
			ActiveWorkers:           3,
		}
	})

	want := `
# HELP controller_runtime_active_workers Number of currently used workers per controller
# TYPE controller_runtime_active_workers gauge
controller_runtime_active_workers{controller="foo"} 3
# HELP controller_runtime_max_concurrent_reconciles Maximum number of concurrent reconciles per controller
# TYPE controller_runtime_max_concurrent_reconciles gauge
controller_runtime_max_concurrent_reconciles{controller="foo"} 4
# HELP controller_runtime_reconcile_errors_total Total number of reconciliation errors per controller
# TYPE controller_runtime_reconcile_errors_total counter
controller_runtime_reconcile_errors_total{controller="foo"} 3
# HELP controller_runtime_reconcile_panics_total Total number of reconciliation panics per controller
# TYPE controller_runtime_reconcile_panics_total counter
controller_runtime_reconcile_panics_total{controller="foo"} 1
# HELP controller_runtime_reconcile_time_seconds Length of time per reconciliation per controller
# TYPE controller_runtime_reconcile_time_seconds histogram
controller_runtime_reconcile_time_seconds_bucket{controller="foo",le="0.005"} 7
controller_runtime_reconcile_time_seconds_bucket{controller="foo",le="0.01"} 9
controller_runtime_reconcile_time_seconds_bucket{controller="foo",le="+Inf"} 11
controller_runtime_reconcile_time_seconds_sum{controller="foo"} 1.5
controller_runtime_reconcile_time_seconds_count{controller="foo"} 11
# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{controller="foo",result="error"} 3
controller_runtime_reconcile_total{controller="foo",result="requeue"} 0
controller_runtime_reconcile_total{controller="foo",result="requeue_after"} 2
controller_runtime_reconcile_total{controller="foo",result="success"} 5
# HELP controller_runtime_terminal_reconcile_errors_total Total number of terminal reconciliation errors per controller
# TYPE controller_runtime_terminal_reconcile_errors_total counter
controller_runtime_terminal_reconcile_errors_total{controller="foo"} 1
`
	names := []string{
		"controller_runtime_active_workers", "controller_runtime_max_concurrent_reconciles",
		"controller_runtime_reconcile_errors_total", "controller_runtime_reconcile_panics_total",
		"controller_runtime_reconcile_time_seconds", "controller_runtime_reconcile_total",
		"controller_runtime_terminal_reconcile_errors_total",
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func TestControllerOptionsMetrics(t *testing.T) {
	reg := promclient.NewRegistry()
	p, err := prometheus.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	// A controller that has not run exports its gauges and its queue's.
	controller.New("idle", func(context.Context, string) (queue.Result, error) {
		return queue.Result{}, nil
	}, controller.Options[string]{Metrics: p.Controller, QueueMetrics: p.Queue, MaxConcurrentReconciles: 2})
	want := `
# HELP controller_runtime_max_concurrent_reconciles Maximum number of concurrent reconciles per controller
# TYPE controller_runtime_max_concurrent_reconciles gauge
controller_runtime_max_concurrent_reconciles{controller="idle"} 2
# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="idle",priority="-100"} 0
workqueue_depth{name="idle",priority="0"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "controller_runtime_max_concurrent_reconciles", "workqueue_depth"); err != nil {
		t.Error(err)
	}
	// Its histogram has controller-runtime's 40 buckets.
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_time_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			b := m.GetHistogram().GetBucket()
			if len(b) != 40 || b[0].GetUpperBound() != 0.005 || b[39].GetUpperBound() != 60 {
				t.Errorf("idle controller's reconcile time has %d buckets, want 40 from 0.005 to 60", len(b))
			}
		}
	}
}
