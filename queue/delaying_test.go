package queue_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/queue"
)

// With a worker waiting, a delayed item is handed out no earlier than its
// ready time and at most 100µs (the timer slack) after it.
func TestDelayedAddsOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedDelayingQueue[int](queue.Options{})
		const n = 2000
		rng := rand.New(rand.NewPCG(3, 4))
		start := time.Now()
		readyAt := make([]time.Duration, n)
		for i := range n {
			readyAt[i] = time.Duration(rng.Int64N(int64(10 * time.Millisecond)))
			q.AddAfter(i, readyAt[i])
		}
		var worst time.Duration
		for range n {
			item, err := q.Get(context.Background())
			if err != nil {
				t.Fatalf("Get() error = %v", err)
			}
			late := time.Since(start) - readyAt[item]
			if late < 0 {
				t.Fatalf("item %d handed out %v before its ready time", item, -late)
			}
			worst = max(worst, late)
			q.Done(item)
		}
		if worst > 100*time.Microsecond {
			t.Errorf("an item was handed out %v after its ready time, want at most 100µs", worst)
		}
		q.ShutDown()
	})
}

// A delayed add that comes due is queued even if nobody calls the queue:
// the timer does it.
func TestDelayedAddNeedsNoCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedDelayingQueue[string](queue.Options{})
		defer q.ShutDown()
		q.AddAfter("a", time.Minute)
		q.AddAfter("b", time.Hour)
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := q.Len(); n != 1 {
			t.Errorf("Len() after 1m = %d, want 1", n)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := q.Len(); n != 2 {
			t.Errorf("Len() after 1h1m = %d, want 2", n)
		}
	})
}
