package priorityqueue_test

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/typedcache/typedcache/queue"
)

// The implementations, as named in the impl= component of benchmark names.
const (
	implTypedcache        = "typedcache"
	implControllerRuntime = "controller-runtime"
	implClientGo          = "client-go"
)

// crLowPriority is controller-runtime's handler.LowPriority: the priority
// its event handlers give to the adds of an informer's initial list and to
// resyncs.
const crLowPriority = -100

// workQueue is what the benchmarks use of a queue: add an item at normal or
// low priority, take the next one (false once the queue is shut down), mark
// it done, shut the queue down.
type workQueue[K comparable] struct {
	add      func(item K, low bool)
	get      func() (K, bool)
	done     func(item K)
	shutDown func()
}

// An implementation names a queue and builds a new one.
type implementation[K comparable] struct {
	name     string
	newQueue func() workQueue[K]
}

// implementations lists the three queues, in the order of the sub-benchmarks.
func implementations[K comparable]() []implementation[K] {
	return []implementation[K]{
		{implTypedcache, newTypedcache[K]},
		{implControllerRuntime, newControllerRuntime[K]},
		{implClientGo, newClientGo[K]},
	}
}

// newTypedcache returns typedcache's priority queue with its default
// settings, low items added at queue.PriorityLow.
func newTypedcache[K comparable]() workQueue[K] {
	ctx := context.Background()
	q := queue.NewTypedPriorityQueue(queue.DefaultTypedControllerRateLimiter[K](), queue.PriorityOptions{})
	low := queue.AddOptions{Priority: queue.PriorityLow}
	return workQueue[K]{
		add: func(item K, isLow bool) {
			if isLow {
				q.AddWithOptions(item, low)
				return
			}
			q.Add(item)
		},
		get: func() (K, bool) {
			item, err := q.Get(ctx)
			return item, err == nil
		},
		done:     q.Done,
		shutDown: q.ShutDown,
	}
}

// newControllerRuntime returns controller-runtime's priority queue with its
// default options, low items added at handler.LowPriority, and taken with
// GetWithPriority, as its controllers do. The queue has no name: a
// controller names its queue after itself, which turns on its Prometheus
// metrics; unnamed, it records none, like the other two queues here.
func newControllerRuntime[K comparable]() workQueue[K] {
	q := priorityqueue.New[K]("")
	low := priorityqueue.AddOpts{Priority: new(crLowPriority)}
	return workQueue[K]{
		add: func(item K, isLow bool) {
			if isLow {
				q.AddWithOpts(low, item)
				return
			}
			q.Add(item)
		},
		get: func() (K, bool) {
			item, _, shutdown := q.GetWithPriority()
			return item, !shutdown
		},
		done:     q.Done,
		shutDown: q.ShutDown,
	}
}

// newClientGo returns client-go's rate-limiting queue with the default
// controller rate limiter. It has no priorities: every item is added with
// Add and served in FIFO order.
func newClientGo[K comparable]() workQueue[K] {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[K]())
	return workQueue[K]{
		add: func(item K, _ bool) { q.Add(item) },
		get: func() (K, bool) {
			item, shutdown := q.Get()
			return item, !shutdown
		},
		done:     q.Done,
		shutDown: q.ShutDown,
	}
}
