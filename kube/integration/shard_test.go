package integration

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/typedcache/typedcache/kube/internal/worklog"
	"github.com/typedcache/typedcache/kube/shard"
)

// setWant sets data "want" of every ConfigMap of ns to gen.
func setWant(t *testing.T, cs kubernetes.Interface, ns string, n, gen int) {
	t.Helper()
	err := parallel(n, 16, func(i int) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: ns}}
		for {
			cur, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), cm.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Data["want"] = strconv.Itoa(gen)
			if _, err = cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cur, metav1.UpdateOptions{}); err == nil {
				return nil
			}
		}
	})
	if err != nil {
		t.Fatalf("set want=%d: %v", gen, err)
	}
}

// waitConverged waits until every ConfigMap of ns has done == want == gen
// on the server, checking after each reconcile (p bumped).
func waitConverged(t *testing.T, cs kubernetes.Interface, ns string, n, gen int, p *progress) {
	t.Helper()
	var lagging int
	waitUntil(t, p, time.Minute, func() bool {
		list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		lagging = n - len(list.Items)
		for i := range list.Items {
			if d := list.Items[i].Data; d["done"] != strconv.Itoa(gen) || d["want"] != strconv.Itoa(gen) {
				lagging++
			}
		}
		return lagging == 0
	}, func() string { return fmt.Sprintf("%d of %d ConfigMaps not at generation %d", lagging, n, gen) })
}

// TestShardCrashAndJoin: three replicas share 1,000 ConfigMaps; one is
// killed (its Run ends without deleting its Lease, as in a crash) while
// every object changes, then a new one joins while they all change again.
// Every object converges, no key is processed by two replicas at once,
// and the killed replica's keys are taken once its Lease has expired.
func TestShardCrashAndJoin(t *testing.T) {
	c := newCluster(t)
	ns := c.namespace(t)
	cs := c.client(t, nil)
	const n = 1000
	if err := parallel(n, 16, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: ns},
			Data:       map[string]string{"want": "1"},
		}, metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatalf("create: %v", err)
	}
	p := newProgress()
	log := worklog.New(p.bump)
	// Short timings, so that a crashed replica's keys move within seconds.
	opts := shard.Options{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond}
	keep := opts
	keep.KeepLease = true
	var rs []*shardReplica
	for i := range 3 {
		id := fmt.Sprintf("replica-%d", i)
		rs = append(rs, startShardReplica(t, c, replicaSpec{ns: ns, group: "shard-test", id: id, opts: keep, workers: 4, reconcile: copyWant(id, log)}))
	}
	began := time.Now()
	waitConverged(t, cs, ns, n, 1, p)
	t.Logf("3 replicas: 1,000 objects converged in %v", time.Since(began))

	// Kill replica-0 and change every object.
	dead := rs[0]
	lost := log.LastBy(dead.id)
	crash := time.Now()
	if err := dead.stop(); err != nil {
		t.Errorf("%s: Run = %v, want nil", dead.id, err)
	}
	setWant(t, cs, ns, n, 2)
	waitConverged(t, cs, ns, n, 2, p)
	waits := worklog.Waits(log.FirstStarts(lost, func(r string) bool { return r != dead.id }, crash), crash)
	if len(waits) < len(lost) {
		t.Errorf("%d of the %d keys of %s were not processed after it died", len(lost)-len(waits), len(lost), dead.id)
	}
	if len(waits) > 0 {
		t.Logf("%s killed: its %d keys waited %v (first) to %v (last) before another replica took them; converged %v after the kill (lease %v, retry %v)",
			dead.id, len(lost), waits[0], waits[len(waits)-1], time.Since(crash), opts.LeaseDuration, opts.RetryPeriod)
		if waits[0] < opts.LeaseDuration-opts.RetryPeriod {
			t.Errorf("a key of %s was taken %v after it died, before its Lease can have expired", dead.id, waits[0])
		}
	}

	// A new replica joins, and every object changes again.
	join := time.Now()
	joiner := startShardReplica(t, c, replicaSpec{ns: ns, group: "shard-test", id: "replica-3", opts: opts, workers: 4, reconcile: copyWant("replica-3", log)})
	setWant(t, cs, ns, n, 3)
	waitConverged(t, cs, ns, n, 3, p)
	gained := log.LastBy(joiner.id)
	if len(gained) < n/8 {
		t.Fatalf("replica-3 processed %d keys last, want about a third of %d", len(gained), n)
	}
	joined := worklog.Waits(log.FirstStarts(gained, func(r string) bool { return r == joiner.id }, join), join)
	t.Logf("replica-3 joined: it took %d keys, the first %v after it started; converged %v after the join",
		len(gained), joined[0], time.Since(join))

	if o := log.Overlaps(); len(o) > 0 {
		t.Errorf("%d overlapping processings, first: %s", len(o), o[0])
	}
	t.Logf("%d reconciles in all", len(log.Spans()))
}
