package queue_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/typedcache/typedcache/queue"
)

// A controller: event handlers add keys, Run's workers reconcile them, and
// failures are retried with backoff. On shutdown the queue is drained so
// that no key already queued is left unprocessed.
func Example_controller() {
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{
		Name:   "pods",
		Logger: slog.New(slog.DiscardHandler), // keep the example's output clean
	})

	var mu sync.Mutex
	attempts := map[string]int{}
	var synced sync.WaitGroup // for the example: wait until every key succeeded
	synced.Add(3)
	reconcile := func(ctx context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		attempts[key]++
		if key == "default/flaky" && attempts[key] < 3 {
			return errors.New("dependency not ready") // retried after 5ms, then 10ms
		}
		synced.Done()
		return nil
	}

	// What informer event handlers would do.
	for _, key := range []string{"default/web", "default/flaky", "kube-system/dns"} {
		q.Add(key)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error)
	go func() { ran <- q.Run(ctx, 2, reconcile) }()

	synced.Wait()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		fmt.Println("drain:", err)
	}
	fmt.Println("Run returned:", <-ran)
	for _, key := range slices.Sorted(maps.Keys(attempts)) {
		fmt.Printf("%s: %d attempts\n", key, attempts[key])
	}
	// Output:
	// Run returned: <nil>
	// default/flaky: 3 attempts
	// default/web: 1 attempts
	// kube-system/dns: 1 attempts
}

func ExampleNew() {
	ctx := context.Background()
	q := queue.New[string](queue.Options{})
	q.Add("a")
	q.Add("b")
	q.Add("a") // already queued: collapses
	fmt.Println("queued:", q.Len())

	item, _ := q.Get(ctx)
	fmt.Println("got:", item)
	q.Add(item) // processing: queued again once Done is called
	fmt.Println("queued while processing a:", q.Len())
	q.Done(item)

	q.ShutDown()
	for {
		item, err := q.Get(ctx)
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("got:", item)
		q.Done(item)
	}
	// Output:
	// queued: 2
	// got: a
	// queued while processing a: 1
	// got: b
	// got: a
	// queue: shut down
}

func ExampleNewTypedDelayingQueue() {
	ctx := context.Background()
	q := queue.NewTypedDelayingQueue[string](queue.Options{})
	defer q.ShutDown()

	q.AddAfter("resync", 10*time.Millisecond)
	q.AddAfter("resync", time.Hour) // the earliest ready time wins
	start := time.Now()
	item, _ := q.Get(ctx)
	fmt.Println(item, "ready after 10ms:", time.Since(start) >= 10*time.Millisecond)
	q.Done(item)

	q.AddAfter("retry", time.Hour)
	q.Add("retry") // supersedes the delayed add: runs now, and only once
	item, _ = q.Get(ctx)
	q.Done(item)
	fmt.Println(item, "now; still pending later:", q.CancelAfter("retry"))
	// Output:
	// resync ready after 10ms: true
	// retry now; still pending later: false
}

func ExampleNewTypedRateLimitingQueue() {
	limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{})
	defer q.ShutDown()

	for range 3 {
		q.AddRateLimited("flaky") // after 1ms, 2ms, 4ms
		item, _ := q.Get(context.Background())
		q.Done(item)
	}
	fmt.Println("requeues:", q.NumRequeues("flaky"))
	q.Forget("flaky")
	fmt.Println("after Forget:", q.NumRequeues("flaky"))
	// Output:
	// requeues: 3
	// after Forget: 0
}

func ExampleDefaultTypedControllerRateLimiter() {
	limiter := queue.DefaultTypedControllerRateLimiter[string]()
	for range 4 {
		fmt.Println(limiter.When("key"))
	}
	// Output:
	// 5ms
	// 10ms
	// 20ms
	// 40ms
}
