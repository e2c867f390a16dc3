package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// TestWatchResumesAfterServerEnds makes the server end every watch after
// two seconds and checks that the reflector resumes watching from where it
// was, without relisting and without missing an update.
func TestWatchResumesAfterServerEnds(t *testing.T) {
	c := newCluster(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			ns := c.namespace(t)
			cs := c.client(t, nil)
			createN(t, cs, ns, 0, 10)
			p := newProgress()
			var s *steered
			o := startOurs(t, c, ns, p, func(lw reflector.ListerWatcher[*corev1.ConfigMap]) reflector.ListerWatcher[*corev1.ConfigMap] {
				s = newSteered(lw, 2*time.Second)
				return s
			})
			if err := o.inf.WaitForSync(context.Background()); err != nil {
				t.Fatal(err)
			}
			syncWatches := s.watchCount()
			start := time.Now()
			updates := 0
			for time.Since(start) < 7*time.Second {
				cm := configMap(ns, updates%10)
				cm.Data["phase"] = fmt.Sprint(updates)
				if _, err := cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
					t.Fatalf("update: %v", err)
				}
				updates++
				time.Sleep(50 * time.Millisecond) // a steady trickle of changes across watch ends
			}
			want := serverState(t, cs, ns)
			waitForState(t, p, syncTimeout, want, o.stateSources("typedcache")...)
			o.view.mu.Lock()
			seen := o.view.updates
			o.view.mu.Unlock()
			if seen != updates {
				t.Errorf("handler saw %d updates, want %d", seen, updates)
			}
			if w := s.watchCount() - syncWatches; w < 3 {
				t.Errorf("%d watches after sync in 7s with 2s server timeouts, want at least 3", w)
			}
			if n := o.reqs.lists.Load(); (m.streaming && n != 0) || (!m.streaming && n != 1) {
				t.Errorf("%d lists, want %d: a watch the server ends must be resumed, not relisted", n, map[bool]int{true: 0, false: 1}[m.streaming])
			}
			o.view.check(t, "typedcache")
			t.Logf("%s: %d updates over %d server-ended watches, all delivered", m.name, updates, s.watchCount()-syncWatches)
		})
	}
}

// TestForcedExpiry makes the reflector's watch expire for real: while
// the reflector waits to re-watch, objects change, etcd's revision moves
// on and is compacted, and kube-apiserver restarts, so that its watch
// cache starts after the reflector's version. The re-watch is then
// answered 410 Gone, and the reflector must relist and infer the
// deletions it missed.
func TestForcedExpiry(t *testing.T) {
	c := newCluster(t)
	if c.script == "" || c.etcd == "" {
		t.Skip("needs a cluster started by scripts/kube-apiserver/cluster (restart, etcd endpoint)")
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			ns := c.namespace(t)
			cs := c.client(t, nil)
			createN(t, cs, ns, 0, 100)
			p := newProgress()
			var s *steered
			o := startOurs(t, c, ns, p, func(lw reflector.ListerWatcher[*corev1.ConfigMap]) reflector.ListerWatcher[*corev1.ConfigMap] {
				s = newSteered(lw, 0)
				return s
			})
			if err := o.inf.WaitForSync(context.Background()); err != nil {
				t.Fatal(err)
			}
			syncRequests := o.reqs.lists.Load() + o.reqs.streams.Load()

			tr := s.interrupt()
			<-tr.held // the reflector is re-watching; nothing reaches it now
			t.Logf("%s: reflector held", m.name)
			changeFirst(t, cs, ns, 10) // delete 0-9, update 10-19
			createN(t, cs, ns, 100, 10)
			c.restartAPIServer(t, func() { c.bumpAndCompactEtcd(t) })

			// The adapter reports the server's answer as an expiry.
			lw := kube.Source[*corev1.ConfigMap](c.client(t, nil).CoreV1().ConfigMaps(ns))
			w, err := lw.Watch(context.Background(), reflector.WatchOptions{ResourceVersion: tr.from})
			if err == nil {
				_, err = w.Next(context.Background())
				w.Stop()
			}
			if !errors.Is(err, reflector.ErrExpired) || !(apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) {
				t.Errorf("watch from version %q after the restart: %v, want a 410 wrapping reflector.ErrExpired", tr.from, err)
			}

			start := time.Now()
			close(tr.release)
			want := serverState(t, cs, ns)
			waitForState(t, p, syncTimeout, want, o.stateSources("typedcache")...)
			t.Logf("%s: cache equal to the server %v after the expired watch", m.name, time.Since(start).Round(time.Millisecond))
			if !slices.ContainsFunc(o.errors(), func(err error) bool {
				return errors.Is(err, reflector.ErrExpired) && (apierrors.IsResourceExpired(err) || apierrors.IsGone(err))
			}) {
				t.Errorf("informer errors %v: none is a 410 wrapping reflector.ErrExpired", o.errors())
			}
			if n := o.reqs.lists.Load() + o.reqs.streams.Load(); n <= syncRequests {
				t.Errorf("%v: no relist after the expiry", o.reqs)
			}
			o.view.mu.Lock()
			inferred := o.view.inferred
			o.view.mu.Unlock()
			if inferred != 10 {
				t.Errorf("handler saw %d inferred deletions, want the 10 made while the watch was down", inferred)
			}
			o.view.check(t, "typedcache")
		})
	}
}

// TestAPIServerRestart restarts kube-apiserver while objects change before
// and right after, with etcd's revision moved and compacted while it is
// down: both informers must recover with no lost and no phantom object.
func TestAPIServerRestart(t *testing.T) {
	c := newCluster(t)
	if c.script == "" || c.etcd == "" {
		t.Skip("needs a cluster started by scripts/kube-apiserver/cluster (restart, etcd endpoint)")
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			ns := c.namespace(t)
			cs := c.client(t, nil)
			createN(t, cs, ns, 0, 300)
			p := newProgress()
			o, th := startOurs(t, c, ns, p, nil), startTheirs(t, c, ns, p)
			if err := o.inf.WaitForSync(context.Background()); err != nil {
				t.Fatal(err)
			}
			churn(t, cs, ns, 0, 50)
			syncRequests := o.reqs.lists.Load() + o.reqs.streams.Load()

			start := time.Now()
			c.restartAPIServer(t, func() { c.bumpAndCompactEtcd(t) })
			restarted := time.Since(start)
			churn(t, c.client(t, nil), ns, 100, 50) // while the informers are still backing off
			createN(t, cs, ns, 300, 20)
			want := serverState(t, cs, ns)
			waitForState(t, p, syncTimeout, want, append(o.stateSources("typedcache"), th.stateSources("client-go")...)...)
			t.Logf("%s: apiserver down and up in %v; both caches equal to the server %v after the restart began",
				m.name, restarted.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			o.view.check(t, "typedcache")
			th.view.check(t, "client-go")
			sameObjects(t, o, th)
			errs := o.errors()
			if !slices.ContainsFunc(errs, func(err error) bool { return !errors.Is(err, reflector.ErrExpired) }) {
				t.Errorf("informer errors %v: the outage was not reported", errs)
			}
			// The watch from the version before the restart is answered 410
			// (the reflector relists without reporting it, as it had made
			// progress on that watch).
			if n := o.reqs.lists.Load() + o.reqs.streams.Load(); n <= syncRequests {
				t.Errorf("%v: no relist after the restart", o.reqs)
			}
			refused := slices.ContainsFunc(errs, func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) })
			t.Logf("%s: %d errors reported during the outage (connection refused among them: %v)", m.name, len(errs), refused)
		})
	}
}

// changeFirst deletes configmaps 0 to n-1 and updates n to 2n-1.
func changeFirst(t *testing.T, cs kubernetes.Interface, ns string, n int) {
	t.Helper()
	if err := parallel(2*n, writers, func(i int) error {
		cm := configMap(ns, i)
		if i < n {
			return cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
		}
		cm.Data["phase"] = "updated"
		_, err := cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatalf("change: %v", err)
	}
}

// churn updates or deletes (at random, seeded) the configmaps numbered
// [from, from+n) that exist.
func churn(t *testing.T, cs kubernetes.Interface, ns string, from, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(from), uint64(n)))
	deletes := make([]bool, n)
	for i := range deletes {
		deletes[i] = r.IntN(3) == 0
	}
	if err := parallel(n, writers, func(i int) error {
		cm := configMap(ns, from+i)
		var err error
		if deletes[i] {
			err = cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), cm.Name, metav1.DeleteOptions{})
		} else {
			cm.Data["phase"] = "churned"
			_, err = cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
		}
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}); err != nil {
		t.Fatalf("churn: %v", err)
	}
}
