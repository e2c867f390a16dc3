package queue_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// A priority queue's snapshot breaks its depth down by priority, with the
// age of the oldest item of each, dirty items included.
func TestPriorityMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{Options: queue.Options{Metrics: rec.NewMetrics}})
		defer q.ShutDown()
		const high = queue.Priority(7)

		want := queue.MetricsSnapshot{Priorities: []queue.PriorityDepth{{Priority: queue.PriorityNormal}, {Priority: queue.PriorityLow}}}
		if diff := cmp.Diff(want, rec.snapshot()); diff != "" {
			t.Errorf("snapshot() of an empty queue mismatch (-want +got):\n%s", diff)
		}

		q.AddWithOptions("low-1", queue.AddOptions{Priority: queue.PriorityLow})
		q.AddWithOptions("busy", queue.AddOptions{Priority: high})
		time.Sleep(time.Second)
		q.AddWithOptions("low-2", queue.AddOptions{Priority: queue.PriorityLow})
		if item, _ := q.Get(context.Background()); item != "busy" {
			t.Fatalf("Get() = %q, want busy", item)
		}
		q.Add("busy") // dirty, at PriorityNormal
		q.AddWithOptions("low-2", queue.AddOptions{Priority: high})
		time.Sleep(2 * time.Second)

		want = queue.MetricsSnapshot{
			Depth: 3, Processing: 1, UnfinishedWork: 2 * time.Second, LongestRunning: 2 * time.Second,
			Priorities: []queue.PriorityDepth{
				{Priority: high, Depth: 1, Oldest: 2 * time.Second},
				{Priority: queue.PriorityNormal, Depth: 1, Oldest: 2 * time.Second},
				{Priority: queue.PriorityLow, Depth: 1, Oldest: 3 * time.Second},
			},
		}
		if diff := cmp.Diff(want, rec.snapshot()); diff != "" {
			t.Errorf("snapshot() mismatch (-want +got):\n%s", diff)
		}
	})
}
