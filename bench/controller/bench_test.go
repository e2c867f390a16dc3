package controller_test

import (
	"context"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
)

// BenchmarkControllerReconciles feeds changes to a synced controller of
// 10k Deployments and their 10k ReplicaSets and measures the time until
// every change has been reconciled: each operation sends 10k watch events
// (a new resource version of Deployment i for even i, of ReplicaSet i for
// odd i, so that every event queues a distinct Deployment's key: 10k
// reconciles, half through the primary watch, half through the owned
// one) and waits until the 10k reconciles have finished (a counter in the
// reconcile function, then typedcache's WaitIdle). Reported per
// reconcile: time, reconciles/s, bytes and allocations of every
// goroutine, the sources' sends included.
func BenchmarkControllerReconciles(b *testing.B) {
	n := measure.Size(10_000)
	for _, impl := range ordered() {
		b.Run("impl="+impl.name, func(b *testing.B) { reconciles(b, impl, n) })
	}
}

func reconciles(b *testing.B, impl implementation, n int) {
	srcs := newSources(n)
	defer srcs.close()
	deployments, replicaSets := fixture.Deployments.Set(n), fixture.ReplicaSets.Set(n)
	c := newCounter()
	c.expect(n) // the initial lists: one reconcile per Deployment
	r := impl.start(b, srcs, 1, c.reconciled)
	defer r.stop()
	c.wait(b)
	ctx := context.Background()
	if err := r.settle(ctx); err != nil {
		b.Fatal(err)
	}
	rv := n
	m := measure.PerItem(b, n, "reconcile")
	for b.Loop() {
		m.Pause()
		for i := range n {
			rv++
			if i%2 == 0 {
				deployments[i] = fixture.Deployments.WithVersion(deployments[i], rv)
			} else {
				replicaSets[i] = fixture.ReplicaSets.WithVersion(replicaSets[i], rv)
			}
		}
		c.expect(n)
		m.Resume()
		for i := range n {
			var ok bool
			if i%2 == 0 {
				ok = srcs.deployments.Send(ctx, watch.Modified, deployments[i])
			} else {
				ok = srcs.replicaSets.Send(ctx, watch.Modified, replicaSets[i])
			}
			if !ok {
				b.Fatal("watch closed")
			}
		}
		c.wait(b)
		if err := r.settle(ctx); err != nil {
			b.Fatal(err)
		}
	}
	m.Report()
}

// BenchmarkControllerStart measures the time from the start of a manager
// with one controller to the end of its first reconcile, over 10k
// Deployments and their 10k ReplicaSets: the informers list both, the
// caches sync, the controller queues every Deployment and its workers
// start. Sources are built, and the manager is stopped, outside the timer.
func BenchmarkControllerStart(b *testing.B) {
	n := measure.Size(10_000)
	for _, impl := range ordered() {
		b.Run("impl="+impl.name, func(b *testing.B) {
			m := measure.PerItem(b, 1, "start")
			for b.Loop() {
				m.Pause()
				srcs := newSources(n)
				c := newCounter()
				c.expect(n)
				m.Resume()
				r := impl.start(b, srcs, 1, c.reconciled)
				<-c.first
				m.Pause()
				c.wait(b)
				r.stop()
				srcs.close()
				m.Resume()
			}
			m.Report()
		})
	}
}

// BenchmarkControllerIdleManager starts a manager of 20 controllers of
// the benchmark's shape (sharing one informer per resource, as both
// libraries' managers do) over one Deployment and its ReplicaSet, and
// once every controller has reconciled the Deployment, reports what the
// idle manager holds: live heap (heap-B) and goroutine stacks (stack-B)
// after a collection, against the same before the manager was built, and
// goroutines; and the time from building it to that point, per
// controller.
func BenchmarkControllerIdleManager(b *testing.B) {
	const controllers = 20
	for _, impl := range ordered() {
		b.Run("impl="+impl.name, func(b *testing.B) {
			start := func() running {
				srcs := newSources(1)
				c := newCounter()
				c.expect(controllers)
				r := impl.start(b, srcs, controllers, c.reconciled)
				c.wait(b)
				if err := r.settle(context.Background()); err != nil {
					b.Fatal(err)
				}
				stop := r.stop
				r.stop = func() { stop(); srcs.close() }
				return r
			}
			m := measure.PerItem(b, controllers, "controller")
			for b.Loop() {
				r := start()
				m.Pause()
				r.stop()
				m.Resume()
			}
			m.Report()

			var before, after runtime.MemStats
			heap := measure.LiveHeap()
			runtime.ReadMemStats(&before)
			goroutines := runtime.NumGoroutine()
			r := start()
			heap = measure.LiveHeap() - heap
			runtime.ReadMemStats(&after)
			goroutines = runtime.NumGoroutine() - goroutines
			r.stop()
			b.ReportMetric(float64(heap), "heap-B")
			b.ReportMetric(float64(after.StackInuse)-float64(before.StackInuse), "stack-B")
			b.ReportMetric(float64(goroutines), "goroutines")
		})
	}
}
