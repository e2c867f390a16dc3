package prometheus_test

import (
	"strings"
	"testing"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

func TestSharedNames(t *testing.T) {
	reg := promclient.NewRegistry()
	p, err := prometheus.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	// Two handlers named alike are added together; an informer registered
	// again under its name replaces the old one.
	stats := func(cached int) func() informer.Stats {
		return func() informer.Stats {
			return informer.Stats{Cached: cached, Handlers: []informer.NamedHandlerStats{
				{Name: "h", HandlerStats: informer.HandlerStats{Pending: 1, Delivered: 2}},
				{Name: "h", HandlerStats: informer.HandlerStats{Pending: 3, Delivered: 4}},
			}}
		}
	}
	p.Informer("objs", stats(1))
	p.Informer("objs", stats(5))
	// Queues likewise: the counters of both, the gauges of the latest.
	queue.New[string](queue.Options{Name: "q", Metrics: p.Queue}).Add("a")
	q := queue.New[string](queue.Options{Name: "q", Metrics: p.Queue})
	q.Add("b")
	q.Add("c")

	want := `
# HELP informer_cached_objects Number of objects in the informer's cache.
# TYPE informer_cached_objects gauge
informer_cached_objects{name="objs"} 5
# HELP informer_handler_notifications_total Total number of notifications the handler handled.
# TYPE informer_handler_notifications_total counter
informer_handler_notifications_total{handler="h",name="objs"} 6
# HELP informer_handler_pending_notifications Number of notifications received by the handler and not yet handled.
# TYPE informer_handler_pending_notifications gauge
informer_handler_pending_notifications{handler="h",name="objs"} 4
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="q"} 3
# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="q",priority=""} 2
`
	names := []string{"informer_cached_objects", "informer_handler_notifications_total", "informer_handler_pending_notifications", "workqueue_adds_total", "workqueue_depth"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if _, err := prometheus.New(reg); err == nil {
		t.Error("New() on a registry that has a Provider's metrics = nil error, want an error")
	}
}
