package controller_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/bench/internal/fixture"
)

// TestSameWork checks that both controllers do the work the benchmarks
// count on: one reconcile per Deployment after the initial lists, and
// one per changed Deployment or ReplicaSet after that, the ReplicaSet's
// mapped to its owner (a ReplicaSet not mapped would time the wait out).
func TestSameWork(t *testing.T) {
	const n = 50
	for _, impl := range implementations {
		t.Run(impl.name, func(t *testing.T) {
			srcs := newSources(n)
			defer srcs.close()
			c := newCounter()
			c.expect(n)
			r := impl.start(t, srcs, 1, c.reconciled)
			defer r.stop()
			c.wait(t)
			if err := r.settle(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.expect(2)
			ctx := context.Background()
			if !srcs.deployments.Send(ctx, watch.Modified, fixture.Deployment(3, 2*n+1)) ||
				!srcs.replicaSets.Send(ctx, watch.Modified, fixture.ReplicaSet(4, 2*n+2)) {
				t.Fatal("watch closed")
			}
			c.wait(t)
			if err := r.settle(ctx); err != nil {
				t.Fatal(err)
			}
			if got := c.n.Load(); got != n+2 {
				t.Errorf("%d reconciles; want %d", got, n+2)
			}
		})
	}
}
