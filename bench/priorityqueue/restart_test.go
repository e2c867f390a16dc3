package priorityqueue_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedcache/typedcache/bench/internal/measure"
)

// restartConfig sizes the restart scenario.
type restartConfig struct {
	initial  int           // items of the initial list, queued at low priority before the workers start
	live     int           // live changes, added at normal priority while the workers drain the initial list
	liveRate float64       // live changes per second, on average
	workers  int           // worker goroutines
	service  time.Duration // the mean time a worker spends on an item
}

// fullRestart is the restart scenario of the benchmark: 100k initial items,
// 4 workers at 1ms an item (4k items/s, so the initial list takes 25s to
// drain), 2000 live changes at 100/s over its first 20s. In -short mode the
// list and the changes are ten times fewer.
func fullRestart() restartConfig {
	return restartConfig{initial: measure.Size(100_000), live: measure.Size(2000), liveRate: 100, workers: 4, service: time.Millisecond}
}

// restartMetrics runs the restart scenario of the benchmark.
func restartMetrics(newQueue func() workQueue[int]) (map[string]float64, error) {
	waits, err := restart(fullRestart(), newQueue)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"live-p50-ns": waits.Percentile(50), "live-p99-ns": waits.Percentile(99)}, nil
}

// errTimeout reports a scenario that did not end within its virtual time
// limit.
var errTimeout = errors.New("scenario did not end in time")

// restart replays a controller's restart in a synctest bubble: the
// informer's initial list (items 0 to initial-1) is queued at low priority
// when the workers start; each worker then spends a time uniform in
// [service/2, 3·service/2] on each item it gets, a time fixed per item.
// Meanwhile live changes arrive at normal priority, with exponential gaps
// of mean 1/liveRate, each on a distinct object of the list picked at
// random: still queued (its priority rises), being processed, or done. It
// returns, for each live change, the time from its Add until a worker got
// the item, and ends, shutting the queue down, once every live change has
// been got.
func restart(cfg restartConfig, newQueue func() workQueue[int]) (*measure.Latencies, error) {
	rng := rand.New(rand.NewPCG(5, 6))
	service := make([]time.Duration, cfg.initial)
	for i := range service {
		service[i] = cfg.service/2 + time.Duration(rng.Int64N(int64(cfg.service)))
	}
	changed := rng.Perm(cfg.initial)[:cfg.live]

	q := newQueue()
	for i := range cfg.initial {
		q.add(i, true)
	}
	var (
		mu      sync.Mutex
		addedAt = make(map[int]time.Time, cfg.live) // live changes not yet got, by item
		sample  = make(map[int]int, cfg.live)       // each live change's number, by item
		got     int
	)
	waits := measure.NewLatencies(cfg.live)
	allGot := make(chan struct{})
	var stopped atomic.Bool // the workers stop rather than drain the queue
	var wg sync.WaitGroup
	for range cfg.workers {
		wg.Go(func() {
			for !stopped.Load() {
				item, ok := q.get()
				if !ok {
					return
				}
				mu.Lock()
				if at, ok := addedAt[item]; ok {
					waits.Record(sample[item], time.Since(at))
					delete(addedAt, item)
					if got++; got == cfg.live {
						close(allGot)
					}
				}
				mu.Unlock()
				time.Sleep(service[item])
				q.done(item)
			}
		})
	}
	for i, item := range changed {
		time.Sleep(time.Duration(rng.ExpFloat64() / cfg.liveRate * float64(time.Second)))
		mu.Lock()
		addedAt[item], sample[item] = time.Now(), i
		mu.Unlock()
		q.add(item, false)
	}
	// The initial list takes initial·service/workers to drain: a live change
	// got later than ten times that is lost.
	limit := 10 * time.Duration(cfg.initial) * cfg.service / time.Duration(cfg.workers)
	var err error
	select {
	case <-allGot:
	case <-time.After(limit):
		mu.Lock()
		err = fmt.Errorf("%w: %d of %d live changes got after %v", errTimeout, got, cfg.live, limit)
		mu.Unlock()
	}
	stopped.Store(true)
	q.shutDown()
	wg.Wait()
	return waits, err
}

// BenchmarkPriorityQueueRestart runs the restart scenario (see restart and
// fullRestart) in virtual time and reports the p50 and p99 of the time from
// a live change's Add until a worker gets it.
func BenchmarkPriorityQueueRestart(b *testing.B) {
	benchScenario(b, "restart")
}
