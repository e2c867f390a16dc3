package informer_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// A controller that restarts finds every pod again in the informer's
// initial list; PriorityEnqueue adds those at PriorityLow, so that a pod
// changed meanwhile is reconciled first. It returns HandlerFuncs, which
// can be wrapped: here to know when the change has been queued.
func ExamplePriorityEnqueue() {
	src := memsource.New(memsource.Options[*Pod]{})
	for _, name := range []string{"a", "b", "c"} {
		_, _ = src.Create(&Pod{Namespace: "default", Name: name, Image: "nginx:1.27"})
	}
	q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
	defer q.ShutDown()

	// The item is the pod's key, which itemOf receives even for a
	// deletion that knows no last state (p is nil then).
	h := informer.PriorityEnqueue(q, func(key string, _ *Pod) (string, bool) {
		return key, true
	})
	updated := make(chan struct{})
	enqueue := h.UpdateFunc
	h.UpdateFunc = func(old, new *Pod) { enqueue(old, new); close(updated) }

	inf := informer.New(src, informer.Options[*Pod]{})
	reg, _ := inf.AddEventHandler(h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	_ = informer.WaitForCacheSync(ctx, reg)

	// A live change while the initial list waits in the queue.
	_, _ = src.Update(&Pod{Namespace: "default", Name: "c", Image: "nginx:1.28"})
	<-updated
	for q.Len() > 0 {
		item, p, _ := q.GetWithPriority(ctx)
		fmt.Println(item, p)
		q.Done(item)
	}
	cancel()
	<-done
	// Output:
	// default/c 0
	// default/a -100
	// default/b -100
}
