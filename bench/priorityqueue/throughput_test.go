package priorityqueue_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
)

// mixedKeys returns n distinct object keys in a random order, and for each
// whether it is added at low priority: one in four at random. Both are the
// same in every run.
func mixedKeys(n int) ([]string, []bool) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := fixture.Keys(n)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	low := make([]bool, n)
	for i := range low {
		low[i] = rng.IntN(4) == 0
	}
	return keys, low
}

// BenchmarkPriorityQueueThroughput moves 100k distinct keys, in a random
// order and one in four at low priority, through a new queue: 2 producer
// goroutines add them (each half of them), while 4 workers take items with
// Get and mark them Done, until every key has been taken. The time runs
// from the queue's construction to the shutdown after the last Done.
func BenchmarkPriorityQueueThroughput(b *testing.B) {
	const producers, workers = 2, 4
	keys, low := mixedKeys(measure.Size(100_000))
	for _, impl := range implementations[string]() {
		b.Run("impl="+impl.name, func(b *testing.B) {
			m := measure.PerItem(b, len(keys), "item")
			for b.Loop() {
				moveAll(impl.newQueue(), keys, low, producers, workers)
			}
			m.Report()
		})
	}
}

// moveAll adds every key to q from producers goroutines, at low priority
// where low says so, and takes them out from workers goroutines with get
// and done; it shuts q down once every key has been taken and returns when
// every goroutine has.
func moveAll(q workQueue[string], keys []string, low []bool, producers, workers int) {
	var wg sync.WaitGroup
	var taken atomic.Int64
	for p := range producers {
		from, to := p*len(keys)/producers, (p+1)*len(keys)/producers
		wg.Go(func() {
			for i := from; i < to; i++ {
				q.add(keys[i], low[i])
			}
		})
	}
	for range workers {
		wg.Go(func() {
			for {
				item, ok := q.get()
				if !ok {
					return
				}
				q.done(item)
				if taken.Add(1) == int64(len(keys)) {
					q.shutDown()
				}
			}
		})
	}
	wg.Wait()
}
