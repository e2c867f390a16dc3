package integration

import (
	"context"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/kube/internal/worklog"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// shardReplica is one replica of a controller of the ConfigMaps of a
// namespace: its own client, informer, queue and Shard.
type shardReplica struct {
	id string
	sh *shard.Shard
	q  *queue.TypedRateLimitingQueue[string]
	// stop ends the replica's Run, once, and returns its result.
	stop func() error
}

// replicaSpec describes a replica: where it runs, its group and identity,
// its timings and workers, and its reconcile function, made from its
// client and informer.
type replicaSpec struct {
	ns, group, id string
	opts          shard.Options
	workers       int
	reconcile     func(cs kubernetes.Interface, cms *informer.Informer[*corev1.ConfigMap]) func(context.Context, string) (queue.Result, error)
}

// copyWant is the reconcile function of a controller that copies each
// ConfigMap's data "want" to "done", recording its work in log.
func copyWant(id string, log *worklog.Log) func(kubernetes.Interface, *informer.Informer[*corev1.ConfigMap]) func(context.Context, string) (queue.Result, error) {
	return func(cs kubernetes.Interface, cms *informer.Informer[*corev1.ConfigMap]) func(context.Context, string) (queue.Result, error) {
		return func(ctx context.Context, k string) (queue.Result, error) {
			sp := log.Begin(id, k)
			defer log.End(sp)
			cm, ok := cms.Cache().GetByKey(k)
			if !ok || cm.Data["done"] == cm.Data["want"] {
				return queue.Result{}, nil
			}
			cm = cm.DeepCopy()
			cm.Data["done"] = cm.Data["want"]
			_, err := cs.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
			return queue.Result{}, err // a conflict: a newer version is on its way
		}
	}
}

// startShardReplica starts a replica and stops it when the test ends.
func startShardReplica(t testing.TB, c *cluster, spec replicaSpec) *shardReplica {
	t.Helper()
	cs := c.client(t, nil)
	ns, id := spec.ns, spec.id
	factory := informer.NewFactory(informer.FactoryOptions{})
	cms := kube.For[*corev1.ConfigMap](factory, cs.CoreV1().ConfigMaps(ns))
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
	enqueue := func(cm *corev1.ConfigMap) { q.Add(key(cm)) }
	if _, err := cms.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(cm *corev1.ConfigMap, _ bool) { enqueue(cm) },
		UpdateFunc: func(_, cm *corev1.ConfigMap) { enqueue(cm) },
	}); err != nil {
		t.Fatalf("AddEventHandler: %v", err)
	}
	sh, err := shard.New(cs.CoordinationV1().Leases(ns), spec.group, id, spec.opts)
	if err != nil {
		t.Fatalf("shard.New: %v", err)
	}
	work, err := shard.NewWork(sh, q, func(k string) string { return k }, cms.Cache().Keys())
	if err != nil {
		t.Fatalf("shard.NewWork: %v", err)
	}
	reconcile := spec.reconcile(cs, cms)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := &shardReplica{id: id, sh: sh, q: q, stop: sync.OnceValue(func() error { cancel(); return <-done })}
	go func() {
		done <- sh.Run(ctx, func(ctx context.Context) error {
			defer q.ShutDown()
			factory.Start(ctx)
			defer factory.Shutdown()
			if err := factory.WaitForSync(ctx); err != nil {
				return err
			}
			return q.Run(ctx, work.Process(reconcile), queue.RunOptions[string]{Workers: spec.workers})
		})
	}()
	t.Cleanup(func() { r.stop() })
	return r
}
