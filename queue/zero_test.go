package queue_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/typedcache/typedcache/queue"
)

// A zero queue fails at its first use with a message that names the
// constructors, instead of an index out of range or a nil dereference.
func TestZeroQueue(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		use  func()
	}{
		{"Queue.Add", func() { var q queue.Queue[string]; q.Add("a") }},
		{"Queue.Get", func() { var q queue.Queue[string]; _, _ = q.Get(ctx) }},
		{"Queue.Done", func() { var q queue.Queue[string]; q.Done("a") }},
		{"TypedDelayingQueue.AddAfter", func() { var q queue.TypedDelayingQueue[string]; q.AddAfter("a", time.Second) }},
		{"TypedDelayingQueue.CancelAfter", func() { var q queue.TypedDelayingQueue[string]; q.CancelAfter("a") }},
		{"TypedRateLimitingQueue.AddRateLimited", func() { var q queue.TypedRateLimitingQueue[string]; q.AddRateLimited("a") }},
		{"TypedRateLimitingQueue.Forget", func() { var q queue.TypedRateLimitingQueue[string]; q.Forget("a") }},
		{"TypedRateLimitingQueue.NumRequeues", func() { var q queue.TypedRateLimitingQueue[string]; q.NumRequeues("a") }},
		{"TypedPriorityQueue.AddWithOptions", func() {
			var q queue.TypedPriorityQueue[string]
			q.AddWithOptions("a", queue.AddOptions{Priority: queue.PriorityLow})
		}},
		{"TypedPriorityQueue.AddWithOptions rate-limited", func() {
			var q queue.TypedPriorityQueue[string]
			q.AddWithOptions("a", queue.AddOptions{RateLimited: true})
		}},
		{"TypedPriorityQueue.GetWithPriority", func() { var q queue.TypedPriorityQueue[string]; _, _, _ = q.GetWithPriority(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recovered(tt.use); !strings.Contains(got, "create it with New, NewTypedDelayingQueue, NewTypedRateLimitingQueue or NewTypedPriorityQueue") {
				t.Errorf("panic %q, want a message naming the constructors", got)
			}
		})
	}

	var q queue.TypedRateLimitingQueue[string]
	noop := func(context.Context, string) (queue.Result, error) { return queue.Result{}, nil }
	if err := q.Run(ctx, noop, queue.RunOptions[string]{}); err == nil || !strings.Contains(err.Error(), "NewTypedRateLimitingQueue") {
		t.Errorf("Run() on a zero queue = %v, want an error naming the constructor", err)
	}
	var pq queue.TypedPriorityQueue[string]
	if err := pq.Run(ctx, noop, queue.RunOptions[string]{}); err == nil || !strings.Contains(err.Error(), "NewTypedPriorityQueue") {
		t.Errorf("Run() on a zero priority queue = %v, want an error naming the constructor", err)
	}
}

// recovered calls f and returns what it panicked with, formatted.
func recovered(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return "no panic"
}
