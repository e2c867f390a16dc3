package queue_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedcache/typedcache/queue"
)

func keys(n int) []string {
	k := make([]string, n)
	for i := range k {
		k[i] = "namespace-" + strconv.Itoa(i%97) + "/object-" + strconv.Itoa(i)
	}
	return k
}

// benchAddGetDone cycles distinct keys through a queue kept 1000 deep.
func benchAddGetDone(b *testing.B, q *queue.Queue[string]) {
	const depth = 1000
	k := keys(1 << 16)
	for _, key := range k[:depth] {
		q.Add(key)
	}
	ctx := context.Background()
	i := depth
	b.ReportAllocs()
	for b.Loop() {
		q.Add(k[i&(len(k)-1)])
		i++
		item, _ := q.Get(ctx)
		q.Done(item)
	}
}

func BenchmarkAddGetDone(b *testing.B) {
	benchAddGetDone(b, queue.New[string](queue.Options{}))
}

func BenchmarkAddGetDoneMetrics(b *testing.B) {
	benchAddGetDone(b, queue.New[string](queue.Options{Name: "bench", Metrics: (&atomicMetrics{}).NewMetrics}))
}

// atomicMetrics is the cheapest useful provider: counters and duration sums.
type atomicMetrics struct {
	adds, retries, starts, finishes atomic.Int64
	queued, worked                  atomic.Int64
	outcomes                        [queue.GaveUp + 1]atomic.Int64
}

func (m *atomicMetrics) NewMetrics(string, func() queue.MetricsSnapshot) queue.Metrics {
	return m
}
func (m *atomicMetrics) Added()   { m.adds.Add(1) }
func (m *atomicMetrics) Retried() { m.retries.Add(1) }
func (m *atomicMetrics) Started(d time.Duration) {
	m.starts.Add(1)
	m.queued.Add(int64(d))
}
func (m *atomicMetrics) Finished(d time.Duration) {
	m.finishes.Add(1)
	m.worked.Add(int64(d))
}
func (m *atomicMetrics) Processed(o queue.Outcome) { m.outcomes[o].Add(1) }

// BenchmarkProducersConsumers moves 1M distinct items from 4 producers to 4
// consumers.
func BenchmarkProducersConsumers(b *testing.B) {
	const items, producers, consumers = 1 << 20, 4, 4
	k := keys(items)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		q := queue.New[string](queue.Options{})
		var consumed, produced sync.WaitGroup
		var got atomic.Int64
		for range consumers {
			consumed.Go(func() {
				for {
					item, err := q.Get(ctx)
					if err != nil {
						return
					}
					got.Add(1)
					q.Done(item)
				}
			})
		}
		for p := range producers {
			produced.Go(func() {
				for i := p; i < items; i += producers {
					q.Add(k[i])
				}
			})
		}
		produced.Wait()
		q.ShutDown()
		consumed.Wait()
		if got.Load() != items {
			b.Fatalf("consumers got %d items, want %d", got.Load(), items)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*items), "ns/item")
}

// BenchmarkAddRateLimited measures one AddRateLimited with client-go's
// default controller limiter over 1000 hot keys.
func BenchmarkAddRateLimited(b *testing.B) {
	k := keys(1000)
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
	defer q.ShutDown()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		q.AddRateLimited(k[i%len(k)])
		i++
	}
}

// BenchmarkAddAfterDrain adds 100k items with random delays up to 10ms while
// one consumer takes them, and reports how late after its ready time each
// item was handed out.
func BenchmarkAddAfterDrain(b *testing.B) {
	const items = 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	delays := make([]time.Duration, items)
	for i := range delays {
		delays[i] = time.Duration(rng.Int64N(int64(10 * time.Millisecond)))
	}
	readyAt := make([]time.Time, items)
	late := make([]time.Duration, 0, items)
	ctx := context.Background()
	var p50, p99, worst time.Duration
	b.ReportAllocs()
	for b.Loop() {
		q := queue.NewTypedDelayingQueue[int](queue.Options{})
		late = late[:0]
		consumed := make(chan struct{})
		go func() {
			defer close(consumed)
			for range items {
				item, _ := q.Get(ctx)
				now := time.Now()
				late = append(late, now.Sub(readyAt[item])) // the queue orders the write before
				q.Done(item)
			}
		}()
		for i, d := range delays {
			readyAt[i] = time.Now().Add(d)
			q.AddAfter(i, d)
		}
		<-consumed
		q.ShutDown()
		slices.Sort(late)
		p50, p99, worst = late[len(late)/2], late[len(late)*99/100], late[len(late)-1]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*items), "ns/item")
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-late-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-late-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-late-ms")
}
