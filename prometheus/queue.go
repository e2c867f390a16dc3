package prometheus

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedcache/typedcache/queue"
)

// Help texts of the work queue metrics, client-go's.
const (
	helpDepth      = "Current depth of workqueue"
	helpAdds       = "Total number of adds handled by workqueue"
	helpLatency    = "How long in seconds an item stays in workqueue before being requested."
	helpWork       = "How long in seconds processing an item from workqueue takes."
	helpUnfinished = "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases."
	helpLongest    = "How many seconds has the longest running processor for workqueue been running."
	helpRetries    = "Total number of retries handled by workqueue"
	helpProcessed  = "Total number of items processed by the worker loop of workqueue, by outcome (succeeded, requeued, failed, terminal, gave_up)."
	helpOldest     = "How many seconds the oldest item queued at each priority has been waiting in workqueue."
)

// queueMetrics holds the queue metrics of a Provider: vectors for what
// queues push, and a collector for the gauges read from their snapshots.
type queueMetrics struct {
	adds, retries, processed *prometheus.CounterVec
	latency, work            *prometheus.HistogramVec
	gauges                   *queueGauges
}

func newQueueMetrics() *queueMetrics {
	label := []string{"name"}
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12) // controller-runtime's

	return &queueMetrics{
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total", Help: helpAdds}, label),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_retries_total", Help: helpRetries,
		}, label),
		processed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_processed_total", Help: helpProcessed,
		}, []string{"name", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workqueue_queue_duration_seconds", Help: helpLatency, Buckets: buckets,
		}, label),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workqueue_work_duration_seconds", Help: helpWork, Buckets: buckets,
		}, label),
		gauges: &queueGauges{
			depth:      prometheus.NewDesc("workqueue_depth", helpDepth, []string{"name", "priority"}, nil),
			oldest:     prometheus.NewDesc("workqueue_oldest_item_age_seconds", helpOldest, []string{"name", "priority"}, nil),
			unfinished: prometheus.NewDesc("workqueue_unfinished_work_seconds", helpUnfinished, label, nil),
			longest:    prometheus.NewDesc("workqueue_longest_running_processor_seconds", helpLongest, label, nil),
		},
	}
}

// collectors returns the collectors to register.
func (m *queueMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.adds, m.retries, m.processed, m.latency, m.work, m.gauges}
}

// Queue creates the metrics of the queue called name: it is a
// queue.MetricsProvider, for queue.Options.Metrics. The queue's gauges are read from snapshot each
// time Prometheus collects them, so they are current and the queue needs
// no ticker.
func (p *Provider) Queue(name string, snapshot func() queue.MetricsSnapshot) queue.Metrics {
	m := p.queues
	m.gauges.sources.set(name, snapshot)
	r := &queueRecorder{
		adds:    m.adds.WithLabelValues(name),
		retries: m.retries.WithLabelValues(name),
		latency: m.latency.WithLabelValues(name),
		work:    m.work.WithLabelValues(name),
	}
	for o := range r.processed {
		r.processed[o] = m.processed.WithLabelValues(name, queue.Outcome(o).String())
	}
	return r
}

// queueRecorder records one queue's events.
type queueRecorder struct {
	adds, retries prometheus.Counter
	latency, work prometheus.Observer
	processed     [queue.GaveUp + 1]prometheus.Counter // by outcome
}

func (r *queueRecorder) Added()                        { r.adds.Inc() }
func (r *queueRecorder) Retried()                      { r.retries.Inc() }
func (r *queueRecorder) Started(queued time.Duration)  { r.latency.Observe(queued.Seconds()) }
func (r *queueRecorder) Finished(worked time.Duration) { r.work.Observe(worked.Seconds()) }

func (r *queueRecorder) Processed(o queue.Outcome) {
	if int(o) < len(r.processed) {
		r.processed[o].Inc()
	}
}

// queueGauges collects the gauges of every queue from its snapshot.
type queueGauges struct {
	sources                            sources[func() queue.MetricsSnapshot]
	depth, oldest, unfinished, longest *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (g *queueGauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.depth
	ch <- g.oldest
	ch <- g.unfinished
	ch <- g.longest
}

// Collect implements prometheus.Collector.
func (g *queueGauges) Collect(ch chan<- prometheus.Metric) {
	g.sources.all(func(name string, snapshot func() queue.MetricsSnapshot) {
		s := snapshot()
		if s.Priorities == nil {
			ch <- prometheus.MustNewConstMetric(g.depth, prometheus.GaugeValue, float64(s.Depth), name, "")
		}
		for _, d := range s.Priorities {
			p := strconv.Itoa(int(d.Priority))
			ch <- prometheus.MustNewConstMetric(g.depth, prometheus.GaugeValue, float64(d.Depth), name, p)
			ch <- prometheus.MustNewConstMetric(g.oldest, prometheus.GaugeValue, d.Oldest.Seconds(), name, p)
		}
		ch <- prometheus.MustNewConstMetric(g.unfinished, prometheus.GaugeValue, s.UnfinishedWork.Seconds(), name)
		ch <- prometheus.MustNewConstMetric(g.longest, prometheus.GaugeValue, s.LongestRunning.Seconds(), name)
	})
}
