package shard_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// Each replica runs the same program with its own identity (its pod
// name), its informers over all the objects, and its queue; the Shard
// decides which keys its workers process. Here one replica is alone in
// its group, so it owns every key, and it stops once they are done.
func Example() {
	cs := fake.NewClientset() // in a cluster: kubernetes.NewForConfig(cfg)
	sh, err := shard.New(cs.CoordinationV1().Leases("kube-system"), "my-controller", "replica-1", shard.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	objects := []string{"default/a", "default/b", "default/c"} // an informer's Cache().Keys() in a controller
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
	work, err := shard.NewWork(sh, q, func(k string) string { return k }, slices.Values(objects))
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, shutdown := context.WithCancel(context.Background()) // signal.NotifyContext in a program
	var mu sync.Mutex
	var done []string
	reconcile := func(ctx context.Context, key string) (queue.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		if done = append(done, key); len(done) == len(objects) {
			shutdown()
		}
		return queue.Result{}, nil
	}
	err = sh.Run(ctx, func(ctx context.Context) error {
		defer q.ShutDown()
		return q.Run(ctx, work.Process(reconcile), queue.RunOptions[string]{Workers: 2})
	})
	slices.Sort(done)
	fmt.Println("members:", sh.Members())
	fmt.Println("processed:", done)
	fmt.Println("Run returned", err)
	// Output:
	// members: [replica-1]
	// processed: [default/a default/b default/c]
	// Run returned <nil>
}
