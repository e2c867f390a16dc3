package shard_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// A Shard as a controller.Manager's Elector: every replica runs the same
// program, and each controller the Manager runs reconciles only the keys
// of its replica. Here one replica is alone in its group, so it owns
// every key, and it stops once they are done.
func Example_manager() {
	cs := fake.NewClientset( // in a cluster: kubernetes.NewForConfig(cfg)
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}},
	)
	sh, err := shard.New(cs.CoordinationV1().Leases("kube-system"), "my-controller", "replica-1", shard.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	quiet := slog.New(slog.DiscardHandler)
	factory := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	configMaps := kube.For[*corev1.ConfigMap](factory, cs.CoreV1().ConfigMaps("default"))

	ctx, shutdown := context.WithCancel(context.Background()) // signal.NotifyContext in a program
	var mu sync.Mutex
	var done []string
	reconcile := func(ctx context.Context, key string) (queue.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		if done = append(done, key); len(done) == 2 {
			shutdown()
		}
		return queue.Result{}, nil
	}
	c := controller.New("configmaps", reconcile, controller.Options[string]{Logger: quiet})
	if err := controller.For(c, configMaps); err != nil {
		fmt.Println(err)
		return
	}
	m := controller.NewManager(factory, controller.ManagerOptions{Elector: sh})
	if err := m.Add(c); err != nil {
		fmt.Println(err)
		return
	}
	err = m.Run(ctx)
	slices.Sort(done)
	fmt.Println("processed:", done)
	fmt.Println("Run returned", err)
	// Output:
	// processed: [default/a default/b]
	// Run returned <nil>
}
