package queue_test

import (
	"context"
	"testing"

	"github.com/typedcache/typedcache/queue"
)

// BenchmarkPriorityAddGetDone cycles distinct keys, one in four at
// PriorityLow, through a priority queue kept 1000 deep.
func BenchmarkPriorityAddGetDone(b *testing.B) {
	const depth = 1000
	q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
	k := keys(1 << 16)
	priority := func(i int) queue.Priority {
		if i%4 == 0 {
			return queue.PriorityLow
		}
		return queue.PriorityNormal
	}
	for i, key := range k[:depth] {
		q.AddWithOptions(key, queue.AddOptions{Priority: priority(i)})
	}
	ctx := context.Background()
	i := depth
	b.ReportAllocs()
	for b.Loop() {
		q.AddWithOptions(k[i&(len(k)-1)], queue.AddOptions{Priority: priority(i)})
		i++
		item, _ := q.Get(ctx)
		q.Done(item)
	}
}

// BenchmarkPriorityAddGetDoneFIFO is BenchmarkAddGetDone through the
// priority queue's Add: one priority.
func BenchmarkPriorityAddGetDoneFIFO(b *testing.B) {
	benchAddGetDone(b, &queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{}).Queue)
}
