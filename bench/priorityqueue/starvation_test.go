package priorityqueue_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedcache/typedcache/bench/internal/measure"
)

// starvationConfig sizes the starvation scenario.
type starvationConfig struct {
	workers  int           // worker goroutines
	service  time.Duration // the time a worker spends on each item
	load     float64       // the rate of normal items, as a fraction of the workers' capacity
	backlog  int           // normal items queued when the workers start
	window   time.Duration // how long the scenario runs
	low      int           // low-priority items
	lowEvery time.Duration // the gap between low-priority items, the first one included
}

// fullStarvation is the starvation scenario of the benchmark: 4 workers at
// 10ms an item (400 items/s), normal items at 90% of that for 10 minutes on
// top of backlog normal items queued at the start, and 10 low-priority items,
// one every 30s. In -short mode, the workers take ten times longer over
// each item and the backlog is ten times smaller, so that the scenario
// handles ten times fewer items over the same window, and aging, which is
// a matter of time, plays the same part.
func fullStarvation(backlog int) starvationConfig {
	service := 10 * time.Millisecond
	if testing.Short() {
		service *= 10
	}
	return starvationConfig{workers: 4, service: service, load: 0.9, backlog: measure.Size(backlog), window: 10 * time.Minute, low: 10, lowEvery: 30 * time.Second}
}

// starvationMetrics returns the starvation scenario of the benchmark with
// the given backlog.
func starvationMetrics(backlog int) scenario {
	return func(newQueue func() workQueue[int]) (map[string]float64, error) {
		r := starvation(fullStarvation(backlog), newQueue)
		return map[string]float64{"low-max-wait-s": r.maxWait.Seconds(), "low-unserved": float64(r.unserved)}, nil
	}
}

// starvationResult is what the starvation scenario measures of the
// low-priority items: the longest wait from an Add to the Get that
// served it, counting an item never served as waiting until the end of the
// window, and the items never served.
type starvationResult struct {
	maxWait  time.Duration
	unserved int
}

// starvation floods a queue, in a synctest bubble, with normal-priority
// items (distinct keys, exponential gaps) at cfg.load of what its workers
// can process, on top of cfg.backlog normal items queued at the start, and
// adds cfg.low items at low priority, one every cfg.lowEvery. Workers spend
// cfg.service on each item. After cfg.window, it reports what became of
// the low items, stops the workers and shuts the queue down.
func starvation(cfg starvationConfig, newQueue func() workQueue[int]) starvationResult {
	q := newQueue()
	for i := range cfg.backlog {
		q.add(i, false)
	}
	start := time.Now()
	var (
		mu       sync.Mutex
		addedAt  = make(map[int]time.Time, cfg.low) // low items, keyed -1, -2, ...
		waits    = make(map[int]time.Duration, cfg.low)
		stopped  atomic.Bool // the window has ended: the goroutines stop
		wg       sync.WaitGroup
		capacity = float64(cfg.workers) / cfg.service.Seconds()
	)
	for range cfg.workers {
		wg.Go(func() {
			for !stopped.Load() {
				item, ok := q.get()
				if !ok {
					return
				}
				if item < 0 {
					mu.Lock()
					if _, served := waits[item]; !served && !stopped.Load() {
						waits[item] = time.Since(addedAt[item])
					}
					mu.Unlock()
				}
				time.Sleep(cfg.service)
				q.done(item)
			}
		})
	}
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(7, 8))
		for item := cfg.backlog; !stopped.Load(); item++ {
			time.Sleep(time.Duration(rng.ExpFloat64() / (cfg.load * capacity) * float64(time.Second)))
			q.add(item, false)
		}
	})
	wg.Go(func() {
		for i := range cfg.low {
			time.Sleep(time.Until(start.Add(time.Duration(i+1) * cfg.lowEvery)))
			if stopped.Load() {
				return
			}
			item := -1 - i
			mu.Lock()
			addedAt[item] = time.Now()
			mu.Unlock()
			q.add(item, true)
		}
	})
	time.Sleep(cfg.window)
	end := time.Now()
	stopped.Store(true)

	mu.Lock()
	var r starvationResult
	for item, at := range addedAt {
		wait, served := waits[item]
		if !served {
			wait = end.Sub(at)
			r.unserved++
		}
		r.maxWait = max(r.maxWait, wait)
	}
	r.unserved += cfg.low - len(addedAt) // never added: the window is too short for them
	mu.Unlock()
	q.shutDown()
	wg.Wait()
	return r
}

// BenchmarkPriorityQueueStarvation runs the starvation scenario (see
// starvation and fullStarvation) in virtual time, without a backlog and
// with 30k normal items queued at the start, which at 90% load the workers
// drain in 750s, longer than the window. It reports the longest wait of a
// low-priority item (one never served counts as waiting until the end of
// the window) and how many were never served.
func BenchmarkPriorityQueueStarvation(b *testing.B) {
	b.Run("backlog=0", func(b *testing.B) { benchScenario(b, "starvation") })
	b.Run("backlog=30k", func(b *testing.B) { benchScenario(b, "starvation-backlog") })
}
