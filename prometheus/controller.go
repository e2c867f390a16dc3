package prometheus

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedcache/typedcache/controller"
)

// controllerCollector collects the metrics of every controller from its
// Stats, under controller-runtime's names and help texts.
type controllerCollector struct {
	sources sources[func() controller.Stats]

	total, errors, terminal, panics, time, maxWorkers, active *prometheus.Desc
}

func newControllerCollector() *controllerCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{"controller"}, labels...), nil)
	}
	return &controllerCollector{
		total:      desc("controller_runtime_reconcile_total", "Total number of reconciliations per controller", "result"),
		errors:     desc("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller"),
		terminal:   desc("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller"),
		panics:     desc("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller"),
		time:       desc("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller"),
		maxWorkers: desc("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller"),
		active:     desc("controller_runtime_active_workers", "Number of currently used workers per controller"),
	}
}

// Controller exports the metrics of the controller called name, read
// from stats each time Prometheus collects them: it is a
// controller.Options.Metrics. Give the controller's work queue the
// Provider's Queue as its controller.Options.QueueMetrics to export the
// queue's metrics too, under the controller's name.
func (p *Provider) Controller(name string, stats func() controller.Stats) {
	p.controllers.sources.set(name, stats)
}

// Describe implements prometheus.Collector.
func (c *controllerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.total, c.errors, c.terminal, c.panics, c.time, c.maxWorkers, c.active} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *controllerCollector) Collect(ch chan<- prometheus.Metric) {
	c.sources.all(func(name string, stats func() controller.Stats) {
		s := stats()
		counter := func(d *prometheus.Desc, v uint64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append([]string{name}, labels...)...)
		}
		gauge := func(d *prometheus.Desc, v int) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), name)
		}
		counter(c.total, s.Succeeded, "success")
		counter(c.total, s.Errors, "error")
		counter(c.total, 0, "requeue") // queue.Result has no Requeue
		counter(c.total, s.RequeuedAfter, "requeue_after")
		counter(c.errors, s.Errors)
		counter(c.terminal, s.TerminalErrors)
		counter(c.panics, s.Panics)
		h := s.ReconcileTime
		buckets := make(map[float64]uint64, len(h.Bounds))
		for i, b := range h.Bounds {
			buckets[b] = h.Counts[i]
		}
		ch <- prometheus.MustNewConstHistogram(c.time, h.Count, h.Sum.Seconds(), buckets, name)
		gauge(c.maxWorkers, s.MaxConcurrentReconciles)
		gauge(c.active, s.ActiveWorkers)
	})
}
