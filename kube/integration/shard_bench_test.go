package integration

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// BenchmarkShardReplicas measures how the throughput of a controller grows
// with sharded replicas when its reconcile waits (10 ms of sleep, as for a
// request elsewhere) rather than computes: 1, 2 and 3 replicas in this
// process, one worker each, over 300 ConfigMaps of a real server. Each
// round queues every key in every replica, as a resync would, and ends
// when each key was reconciled once, by its owner; the metric is
// reconciles per second. The report (bench/cmd/report) shows it in its
// real-server section; impl=typedcache names the library, as in the
// benchmarks it compares with client-go's.
func BenchmarkShardReplicas(b *testing.B) {
	const n, work = 300, 10 * time.Millisecond
	c := newCluster(b)
	ns := c.namespace(b)
	cs := c.client(b, nil)
	if err := parallel(n, 16, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: ns},
		}, metav1.CreateOptions{})
		return err
	}); err != nil {
		b.Fatalf("create: %v", err)
	}
	opts := shard.Options{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond}
	for _, replicas := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("replicas=%d/impl=typedcache", replicas), func(b *testing.B) {
			p := newProgress()
			var done atomic.Int64
			sleep := func(kubernetes.Interface, *informer.Informer[*corev1.ConfigMap]) func(context.Context, string) (queue.Result, error) {
				return func(context.Context, string) (queue.Result, error) {
					time.Sleep(work)
					done.Add(1)
					p.bump()
					return queue.Result{}, nil
				}
			}
			var rs []*shardReplica
			for i := range replicas {
				rs = append(rs, startShardReplica(b, c, replicaSpec{ns: ns, group: fmt.Sprintf("bench-%d", replicas),
					id: fmt.Sprintf("replica-%d", i), opts: opts, workers: 1, reconcile: sleep}))
			}
			keys := make([]string, n)
			for i := range keys {
				keys[i] = ns + "/" + fmt.Sprintf("cm-%04d", i)
			}
			round := func() {
				done.Store(0)
				for _, r := range rs {
					for _, k := range keys {
						r.q.Add(k)
					}
				}
				waitUntil(b, p, time.Minute, func() bool { return done.Load() >= n },
					func() string { return fmt.Sprintf("%d of %d keys reconciled", done.Load(), n) })
			}
			// Wait until the members know each other (the Shard tells
			// nobody when that happens: look every retry period), then
			// for a round in which every key went to its owner.
			for deadline := time.Now().Add(time.Minute); slices.ContainsFunc(rs, func(r *shardReplica) bool { return len(r.sh.Members()) != replicas }); {
				if time.Now().After(deadline) {
					b.Fatalf("the %d members did not see each other within a minute", replicas)
				}
				time.Sleep(opts.RetryPeriod)
			}
			round()
			start := time.Now()
			for b.Loop() {
				round()
			}
			b.ReportMetric(float64(n)*float64(b.N)/time.Since(start).Seconds(), "reconciles/s")
		})
	}
}
