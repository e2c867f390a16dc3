package main

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedcache/typedcache/queue"
)

// Provider exports queue metrics to Prometheus under the names client-go's
// workqueue metrics have in Kubernetes components, labelled by queue name,
// plus workqueue_processed_total, labelled by queue name and outcome, which
// counts what the queue's worker loop did with each item (client-go has no
// worker loop). Its NewMetrics method is a queue.Options.Metrics.
type Provider struct {
	reg          prometheus.Registerer
	adds         *prometheus.CounterVec
	retries      *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	workDuration *prometheus.HistogramVec
	processed    *prometheus.CounterVec
}

// NewProvider returns a provider that registers its metrics with reg.
func NewProvider(reg prometheus.Registerer) (*Provider, error) {
	label := []string{"name"}
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12) // 10ns to 1000s
	p := &Provider{
		reg: reg,
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "workqueue", Name: "adds_total",
			Help: "Total number of adds handled by the queue.",
		}, label),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "workqueue", Name: "retries_total",
			Help: "Total number of delayed and rate-limited adds.",
		}, label),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "How long an item stays queued before a worker takes it.", Buckets: buckets,
		}, label),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "How long processing an item takes.", Buckets: buckets,
		}, label),
		processed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "workqueue", Name: "processed_total",
			Help: "Items processed by the worker loop, by outcome (succeeded, requeued, failed, terminal, gave_up).",
		}, []string{"name", "outcome"}),
	}
	for _, c := range []prometheus.Collector{p.adds, p.retries, p.latency, p.workDuration, p.processed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// NewMetrics creates the metrics of the queue called name, for
// queue.Options.Metrics.
func (p *Provider) NewMetrics(name string, snapshot func() queue.MetricsSnapshot) queue.Metrics {
	if err := p.reg.Register(newGauges(name, snapshot)); err != nil {
		slog.Error("queuemetrics: gauges not registered (is the queue name unique?)", "queue", name, "error", err)
	}
	return metrics{
		adds:         p.adds.WithLabelValues(name),
		retries:      p.retries.WithLabelValues(name),
		latency:      p.latency.WithLabelValues(name),
		workDuration: p.workDuration.WithLabelValues(name),
		processed:    p.processed.MustCurryWith(prometheus.Labels{"name": name}),
	}
}

// metrics records one queue's events.
type metrics struct {
	adds, retries         prometheus.Counter
	latency, workDuration prometheus.Observer
	processed             *prometheus.CounterVec // curried with the queue's name
}

func (m metrics) Added()                        { m.adds.Inc() }
func (m metrics) Retried()                      { m.retries.Inc() }
func (m metrics) Started(queued time.Duration)  { m.latency.Observe(queued.Seconds()) }
func (m metrics) Finished(worked time.Duration) { m.workDuration.Observe(worked.Seconds()) }
func (m metrics) Processed(o queue.Outcome)     { m.processed.WithLabelValues(o.String()).Inc() }

// gauges reads one queue's gauges when Prometheus collects them, so the
// values are current and the queue needs no ticker.
type gauges struct {
	snapshot                   func() queue.MetricsSnapshot
	depth, unfinished, longest *prometheus.Desc
}

func newGauges(name string, snapshot func() queue.MetricsSnapshot) gauges {
	l := prometheus.Labels{"name": name}
	return gauges{
		snapshot: snapshot,
		depth: prometheus.NewDesc("workqueue_depth",
			"Number of items queued, including those added again while processing.", nil, l),
		unfinished: prometheus.NewDesc("workqueue_unfinished_work_seconds",
			"Seconds of work in progress not yet observed by work_duration.", nil, l),
		longest: prometheus.NewDesc("workqueue_longest_running_processor_seconds",
			"How long the longest running item has been processing.", nil, l),
	}
}

func (g gauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.depth
	ch <- g.unfinished
	ch <- g.longest
}

func (g gauges) Collect(ch chan<- prometheus.Metric) {
	s := g.snapshot()
	ch <- prometheus.MustNewConstMetric(g.depth, prometheus.GaugeValue, float64(s.Depth))
	ch <- prometheus.MustNewConstMetric(g.unfinished, prometheus.GaugeValue, s.UnfinishedWork.Seconds())
	ch <- prometheus.MustNewConstMetric(g.longest, prometheus.GaugeValue, s.LongestRunning.Seconds())
}
