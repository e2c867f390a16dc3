package queue_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/queue"
)

// maxDelay is the longest delay of the AddAfter benchmarks: delays are
// uniform in (0, maxDelay].
const maxDelay = 10 * time.Millisecond

// randomDelays returns n delays uniform in (0, maxDelay], the same in
// every run.
func randomDelays(n int) []time.Duration {
	rng := rand.New(rand.NewPCG(1, 2))
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = time.Duration(rng.Int64N(int64(maxDelay))) + 1
	}
	return delays
}

// delaying is what the AddAfter benchmarks use of a delaying queue; take
// returns the next item after marking it done, or false once the queue is
// shut down.
type delaying struct {
	addAfter func(item int, d time.Duration)
	take     func() (int, bool)
	shutDown func()
}

func newTypedDelaying() delaying {
	ctx := context.Background()
	q := queue.NewTypedDelayingQueue[int](queue.Options{})
	return delaying{q.AddAfter, func() (int, bool) {
		item, err := q.Get(ctx)
		if err != nil {
			return 0, false
		}
		q.Done(item)
		return item, true
	}, q.ShutDown}
}

func newClientGoDelaying() delaying {
	q := workqueue.NewTypedDelayingQueue[int]()
	return delaying{q.AddAfter, func() (int, bool) {
		item, shutdown := q.Get()
		if shutdown {
			return 0, false
		}
		q.Done(item)
		return item, true
	}, q.ShutDown}
}

// BenchmarkQueueAddAfterThroughput adds 100k items from one goroutine, each
// with a delay uniform in (0, 10ms], then, once every item is due, takes
// them all out from the same goroutine with Get and Done. The time counted
// runs from the first AddAfter to the last Done, wait included: the wait
// until the last item is due (at most 10ms after the last AddAfter) is
// the same on both sides.
func BenchmarkQueueAddAfterThroughput(b *testing.B) {
	delays := randomDelays(measure.Size(100_000))
	run := func(b *testing.B, newQueue func() delaying) {
		m := measure.PerItem(b, len(delays), "item")
		for b.Loop() {
			q := newQueue()
			for i, d := range delays {
				q.addAfter(i, d)
			}
			time.Sleep(maxDelay)
			for range delays {
				if _, ok := q.take(); !ok {
					b.Fatal("queue shut down")
				}
			}
			q.shutDown()
		}
		m.Report()
	}
	measure.Compare(b, func(b *testing.B) { run(b, newTypedDelaying) }, func(b *testing.B) { run(b, newClientGoDelaying) })
}

// BenchmarkQueueAddAfterLateness adds items at 10k items/s (in bursts:
// the producer sleeps until the next item is due, and a sleep under a
// millisecond lasts about a millisecond), each with a delay uniform in
// (0, 10ms], for 1s, while one consumer takes them out with Get and Done.
// It reports how late each item came out of Get against its ready time,
// the moment of its AddAfter call plus its delay: the p50 and p99 of
// lateness-ns.
func BenchmarkQueueAddAfterLateness(b *testing.B) {
	const rate = 10_000
	delays := randomDelays(measure.Size(rate))
	readyAt := make([]time.Time, len(delays))
	run := func(b *testing.B, newQueue func() delaying) {
		late := measure.NewLatencies(len(delays))
		for b.Loop() {
			q := newQueue()
			var wg sync.WaitGroup
			wg.Go(func() {
				for range delays {
					item, ok := q.take()
					if !ok {
						return
					}
					// The queue orders the write of readyAt[item] before.
					late.Record(item, time.Since(readyAt[item]))
				}
			})
			start := time.Now()
			for i, d := range delays {
				due := start.Add(time.Duration(i) * time.Second / rate)
				if wait := time.Until(due); wait > 50*time.Microsecond {
					time.Sleep(wait)
				}
				readyAt[i] = time.Now().Add(d)
				q.addAfter(i, d)
				// Let the goroutines the add woke run before the producer
				// sleeps, as they would after a real producer's add.
				runtime.Gosched()
			}
			wg.Wait()
			q.shutDown()
		}
		late.Report(b, "lateness-")
	}
	measure.Compare(b, func(b *testing.B) { run(b, newTypedDelaying) }, func(b *testing.B) { run(b, newClientGoDelaying) })
}
