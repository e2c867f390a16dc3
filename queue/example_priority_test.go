package queue_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/queue"
)

// After a restart, the informer replays every object at PriorityLow (see
// informer.PriorityEnqueue) while live changes arrive at PriorityNormal:
// the live changes are handed out first, in the order they came. An add
// of a queued item raises its priority.
func ExampleTypedPriorityQueue() {
	q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
	defer q.ShutDown()

	// The replay of the initial list.
	for _, name := range []string{"a", "b", "c"} {
		q.AddWithOptions(name, queue.AddOptions{Priority: queue.PriorityLow})
	}
	// Live changes: one to b, which is already queued, and a new object.
	q.Add("b")
	q.Add("new")

	for q.Len() > 0 {
		item, p, err := q.GetWithPriority(context.Background())
		if err != nil {
			panic(err)
		}
		fmt.Println(item, p)
		q.Done(item)
	}
	// Output:
	// b 0
	// new 0
	// a -100
	// c -100
}
