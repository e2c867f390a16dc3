package controller

import (
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/queue"
)

// reconcileTimeBounds are the upper bounds, in seconds, of the buckets of
// Stats.ReconcileTime: controller-runtime's for
// controller_runtime_reconcile_time_seconds.
var reconcileTimeBounds = [...]float64{
	0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
	1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
}

// Stats is a snapshot of a controller's counters, for metrics: the
// measurements controller-runtime exports, under the names given with
// each field. Each field is read on its own, so fields read at slightly
// different instants need not agree with each other.
type Stats struct {
	// Succeeded counts the reconciles that returned a nil error and a
	// zero Result (controller_runtime_reconcile_total{result="success"}).
	Succeeded uint64
	// RequeuedAfter counts the reconciles that returned a nil error and a
	// positive RequeueAfter ({result="requeue_after"}). There is no
	// "requeue" result: queue.Result has no Requeue field.
	RequeuedAfter uint64
	// Errors counts the reconciles that returned an error or panicked,
	// terminal errors included ({result="error"}, and
	// controller_runtime_reconcile_errors_total).
	Errors uint64
	// TerminalErrors counts the errors that matched queue.ErrTerminal
	// (controller_runtime_terminal_reconcile_errors_total).
	TerminalErrors uint64
	// Panics counts the reconciles that panicked
	// (controller_runtime_reconcile_panics_total).
	Panics uint64
	// ReconcileTime is the distribution of the reconciles' durations
	// (controller_runtime_reconcile_time_seconds).
	ReconcileTime Histogram
	// MaxConcurrentReconciles is the number of workers
	// (controller_runtime_max_concurrent_reconciles).
	MaxConcurrentReconciles int
	// ActiveWorkers is the number of workers reconciling a key now
	// (controller_runtime_active_workers).
	ActiveWorkers int
}

// Histogram is a snapshot of a histogram with fixed buckets, in the form
// Prometheus exports: cumulative counts.
type Histogram struct {
	// Bounds are the upper bounds of the buckets, in seconds, ascending:
	// the same buckets as controller-runtime's reconcile time histogram.
	Bounds []float64
	// Counts[i] is the number of observations of at most Bounds[i]
	// seconds; observations above the last bound are counted only in
	// Count.
	Counts []uint64
	// Count is the number of observations.
	Count uint64
	// Sum is the sum of the observations.
	Sum time.Duration
}

// metrics holds a controller's counters. Its zero value is ready, but
// for maxWorkers.
type metrics struct {
	succeeded, requeuedAfter, errors, terminal, panics atomic.Uint64
	active                                             atomic.Int64
	maxWorkers                                         int // set by New
	// buckets counts observations per bucket of reconcileTimeBounds, not
	// cumulatively; count and sum cover every observation.
	buckets [len(reconcileTimeBounds)]atomic.Uint64
	count   atomic.Uint64
	sum     atomic.Int64 // nanoseconds
}

// observe records one reconcile that took d and returned res and err, or
// panicked.
func (m *metrics) observe(d time.Duration, res queue.Result, err error, panicked bool) {
	switch {
	case panicked:
		m.panics.Add(1)
		m.errors.Add(1)
	case err != nil:
		m.errors.Add(1)
		if errors.Is(err, queue.ErrTerminal) {
			m.terminal.Add(1)
		}
	case res.RequeueAfter > 0:
		m.requeuedAfter.Add(1)
	default:
		m.succeeded.Add(1)
	}
	// count before the bucket, which Stats reads first: a snapshot never
	// counts more in a bucket than in Count.
	m.count.Add(1)
	m.sum.Add(int64(d))
	if i, _ := slices.BinarySearch(reconcileTimeBounds[:], d.Seconds()); i < len(reconcileTimeBounds) {
		m.buckets[i].Add(1)
	}
}

// Stats returns a snapshot of the controller's counters. It allocates the
// histogram's two slices and takes no lock.
func (c *Controller[K]) Stats() Stats {
	m := &c.metrics
	s := Stats{
		Succeeded:               m.succeeded.Load(),
		RequeuedAfter:           m.requeuedAfter.Load(),
		Errors:                  m.errors.Load(),
		TerminalErrors:          m.terminal.Load(),
		Panics:                  m.panics.Load(),
		MaxConcurrentReconciles: m.maxWorkers,
		ActiveWorkers:           int(m.active.Load()),
		ReconcileTime: Histogram{
			Bounds: slices.Clone(reconcileTimeBounds[:]),
			Counts: make([]uint64, len(reconcileTimeBounds)),
		},
	}
	var cum uint64
	for i := range s.ReconcileTime.Counts {
		cum += m.buckets[i].Load()
		s.ReconcileTime.Counts[i] = cum
	}
	s.ReconcileTime.Count = m.count.Load()
	s.ReconcileTime.Sum = time.Duration(m.sum.Load())
	return s
}

// MetricsProvider hands a controller's counters to a metrics exporter: the
// type of [Options.Metrics]. It is called once, by New, with the
// controller's name and its Stats method. A metrics exporter's method with
// this signature, such as the Controller method of the module
// github.com/typedcache/typedcache/prometheus's Provider, is one:
//
//	c := controller.New("foo", reconcile, controller.Options[string]{Metrics: provider.Controller})
type MetricsProvider func(name string, stats func() Stats)
