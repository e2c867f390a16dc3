package queue_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/util/workqueue"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/queue"
)

// keys returns n distinct object keys, built once per size.
var keys = sync.OnceValue(func() []string { return fixture.Keys(measure.Size(1_000_000)) })

// BenchmarkQueueAddGetDone adds a batch of 1000 keys from one goroutine and
// then takes each out with Get and Done. With keys=distinct every add is a
// new item; with keys=duplicates the batch adds each of 10 keys 100 times.
func BenchmarkQueueAddGetDone(b *testing.B) {
	const batch = 1000
	for _, tc := range []struct {
		name     string
		distinct int
	}{
		{"keys=distinct", batch},
		{"keys=duplicates", 10},
	} {
		ks := keys()[:tc.distinct]
		b.Run(tc.name, func(b *testing.B) {
			measure.Compare(b, func(b *testing.B) {
				ctx := context.Background()
				q := queue.New[string](queue.Options{})
				defer q.ShutDown()
				m := measure.PerItem(b, batch, "item")
				for b.Loop() {
					for i := range batch {
						q.Add(ks[i%len(ks)])
					}
					for range len(ks) {
						item, err := q.Get(ctx)
						if err != nil {
							b.Fatal(err)
						}
						q.Done(item)
					}
				}
				m.Report()
			}, func(b *testing.B) {
				q := workqueue.NewTyped[string]()
				defer q.ShutDown()
				m := measure.PerItem(b, batch, "item")
				for b.Loop() {
					for i := range batch {
						q.Add(ks[i%len(ks)])
					}
					for range len(ks) {
						item, shutdown := q.Get()
						if shutdown {
							b.Fatal("queue shut down")
						}
						q.Done(item)
					}
				}
				m.Report()
			})
		})
	}
}

// BenchmarkQueueProducersConsumers moves 1M distinct keys through a queue
// from 4 producer goroutines to 4 consumer goroutines.
func BenchmarkQueueProducersConsumers(b *testing.B) {
	const producers, consumers = 4, 4
	ks := keys()
	measure.Compare(b, func(b *testing.B) {
		ctx := context.Background()
		m := measure.PerItem(b, len(ks), "item")
		for b.Loop() {
			q := queue.New[string](queue.Options{})
			moveAll(ks, producers, consumers, q.Add, func() bool {
				item, err := q.Get(ctx)
				if err != nil {
					return false
				}
				q.Done(item)
				return true
			}, q.ShutDown)
		}
		m.Report()
	}, func(b *testing.B) {
		m := measure.PerItem(b, len(ks), "item")
		for b.Loop() {
			q := workqueue.NewTyped[string]()
			moveAll(ks, producers, consumers, q.Add, func() bool {
				item, shutdown := q.Get()
				if shutdown {
					return false
				}
				q.Done(item)
				return true
			}, q.ShutDown)
		}
		m.Report()
	})
}

// moveAll adds every key from producers goroutines and takes them out from
// consumers goroutines with take, which reports false once the queue is
// shut down; shutDown is called when every key has been taken.
func moveAll(ks []string, producers, consumers int, add func(string), take func() bool, shutDown func()) {
	var wg sync.WaitGroup
	var taken atomic.Int64
	for p := range producers {
		part := ks[p*len(ks)/producers : (p+1)*len(ks)/producers]
		wg.Go(func() {
			for _, k := range part {
				add(k)
			}
		})
	}
	for range consumers {
		wg.Go(func() {
			for take() {
				if taken.Add(1) == int64(len(ks)) {
					shutDown()
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkQueueAddRateLimited retries 1000 keys in turn through the
// default controller rate limiter (per-item exponential backoff and an
// overall token bucket), forgetting each right after: the bookkeeping of a
// controller whose items fail and then succeed.
func BenchmarkQueueAddRateLimited(b *testing.B) {
	ks := keys()[:1000]
	measure.Compare(b, func(b *testing.B) {
		q := queue.NewTypedRateLimitingQueue[string](queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
		defer q.ShutDown()
		m := measure.PerItem(b, 1, "item")
		i := 0
		for b.Loop() {
			k := ks[i%len(ks)]
			q.AddRateLimited(k)
			q.Forget(k)
			i++
		}
		m.Report()
	}, func(b *testing.B) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		defer q.ShutDown()
		m := measure.PerItem(b, 1, "item")
		i := 0
		for b.Loop() {
			k := ks[i%len(ks)]
			q.AddRateLimited(k)
			q.Forget(k)
			i++
		}
		m.Report()
	})
}
