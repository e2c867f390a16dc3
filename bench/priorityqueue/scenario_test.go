package priorityqueue_test

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestRestart runs a small restart scenario on every implementation: each
// must hand every live change to a worker, and the priority queues must
// serve live changes sooner than client-go's FIFO queue, which serves them
// after the initial list.
func TestRestart(t *testing.T) {
	cfg := restartConfig{initial: 2000, live: 100, liveRate: 400, workers: 4, service: time.Millisecond}
	p99 := make(map[string]float64)
	for _, impl := range implementations[int]() {
		synctest.Test(t, func(t *testing.T) {
			waits, err := restart(cfg, impl.newQueue)
			if err != nil {
				t.Fatalf("%s: %v", impl.name, err)
			}
			p99[impl.name] = waits.Percentile(99)
		})
	}
	for _, name := range []string{implTypedcache, implControllerRuntime} {
		if p99[name] >= p99[implClientGo] {
			t.Errorf("live changes' p99 wait: %s %v, not below client-go's %v", name, time.Duration(p99[name]), time.Duration(p99[implClientGo]))
		}
	}
}

// TestStarvation runs a small starvation scenario, the workers kept busy
// by a backlog for the whole window: typedcache's queue must serve every
// low-priority item, while controller-runtime's serves none.
func TestStarvation(t *testing.T) {
	// 40 items/s: the backlog of 3000 takes 750s to drain at 90% load.
	cfg := starvationConfig{workers: 4, service: 100 * time.Millisecond, load: 0.9, backlog: 3000, window: 10 * time.Minute, low: 5, lowEvery: time.Minute}
	for _, tc := range []struct {
		impl         string
		wantUnserved int
	}{
		{implTypedcache, 0},
		{implControllerRuntime, cfg.low},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			for _, impl := range implementations[int]() {
				if impl.name != tc.impl {
					continue
				}
				synctest.Test(t, func(t *testing.T) {
					if got := starvation(cfg, impl.newQueue); got.unserved != tc.wantUnserved {
						t.Errorf("starvation: %d of %d low items unserved (longest wait %v), want %d", got.unserved, cfg.low, got.maxWait, tc.wantUnserved)
					}
				})
			}
		})
	}
}
