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

// A controller: event handlers add keys, Run's workers reconcile them.
// Failures are retried with backoff, conflicts are routine and logged at
// Debug, an invalid object is a terminal error, and a key can ask to be
// looked at again later. On shutdown the queue is drained so that no key
// already queued is left unprocessed.
func Example_controller() {
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{
		Name:   "pods",
		Logger: slog.New(slog.DiscardHandler), // keep the example's output clean
	})

	var mu sync.Mutex
	attempts := map[string]int{}
	var done sync.WaitGroup // for the example: wait until every key is settled
	done.Add(4)
	reconcile := func(ctx context.Context, key string) (queue.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		attempts[key]++
		switch {
		case key == "default/flaky" && attempts[key] < 3:
			return queue.Result{}, fmt.Errorf("update %s: %w", key, errConflict) // retried after 5ms, then 10ms
		case key == "default/broken":
			return queue.Result{}, queue.TerminalError(errors.New("invalid spec")) // not retried; GiveUp is called
		case key == "default/job" && attempts[key] == 1:
			return queue.Result{RequeueAfter: 10 * time.Millisecond}, nil // look again later
		case key != "default/broken":
			done.Done()
		}
		return queue.Result{}, nil
	}
	var gaveUp []string
	opts := queue.RunOptions[string]{
		Workers:    2,
		MaxRetries: 10,
		GiveUp: func(ctx context.Context, key string, err error) {
			mu.Lock()
			defer mu.Unlock()
			gaveUp = append(gaveUp, fmt.Sprintf("%s: %v", key, err))
			done.Done()
		},
		ErrorLevel: func(err error) slog.Level {
			if errors.Is(err, errConflict) {
				return slog.LevelDebug // routine: a newer version will come
			}
			return slog.LevelError
		},
	}

	// What informer event handlers would do.
	for _, key := range []string{"default/web", "default/flaky", "default/broken", "default/job"} {
		q.Add(key)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error)
	go func() { ran <- q.Run(ctx, reconcile, opts) }()

	done.Wait()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		fmt.Println("drain:", err)
	}
	fmt.Println("Run returned:", <-ran)
	for _, key := range slices.Sorted(maps.Keys(attempts)) {
		fmt.Printf("%s: %d attempts\n", key, attempts[key])
	}
	fmt.Println("gave up:", gaveUp)
	// Output:
	// Run returned: <nil>
	// default/broken: 1 attempts
	// default/flaky: 3 attempts
	// default/job: 2 attempts
	// default/web: 1 attempts
	// gave up: [default/broken: invalid spec]
}

// errConflict stands for an optimistic-concurrency conflict reported by the
// API server.
var errConflict = errors.New("conflict")

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
