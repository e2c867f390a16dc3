package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	objects = 5000
	writers = 16
	// syncTimeout bounds every wait for the caches to catch up.
	syncTimeout = 2 * time.Minute
)

func configMap(ns string, i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i), Labels: map[string]string{"group": fmt.Sprint(i % 10)}},
		Data:       map[string]string{"index": fmt.Sprint(i), "phase": "created"},
	}
}

// TestConfigMaps creates 5,000 ConfigMaps, updates and deletes a fifth of
// them each, and checks that typedcache's informers, started before and
// after the creation, agree with the server and with client-go's
// informers object for object, and that their handlers saw typed updates
// and deletions, in both modes.
func TestConfigMaps(t *testing.T) {
	c := newCluster(t)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.use(t)
			ns := c.namespace(t)
			cs := c.client(t, nil)
			p := newProgress()
			ctx := context.Background()

			early, earlyCG := startOurs(t, c, ns, p, nil), startTheirs(t, c, ns, p)
			start := time.Now()
			if err := parallel(objects, writers, func(i int) error {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, i), metav1.CreateOptions{})
				return err
			}); err != nil {
				t.Fatalf("create: %v", err)
			}
			created := time.Since(start)
			want := serverState(t, cs, ns)
			if len(want) != objects {
				t.Fatalf("server has %d configmaps, want %d", len(want), objects)
			}
			waitForState(t, p, syncTimeout, want, early.stateSources("typedcache (early)")...)
			ourSeen := time.Since(start)
			waitForState(t, p, syncTimeout, want, earlyCG.stateSources("client-go (early)")...)
			t.Logf("%s: created %d configmaps in %v; typedcache informer saw all at %v, client-go's at %v",
				m.name, objects, created.Round(time.Millisecond), ourSeen.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

			// Informers started now fill their caches from the initial list.
			start = time.Now()
			late := startOurs(t, c, ns, p, nil)
			if err := late.inf.WaitForSync(ctx); err != nil {
				t.Fatalf("WaitForSync: %v", err)
			}
			ourSync := time.Since(start)
			start = time.Now()
			lateCG := startTheirs(t, c, ns, p)
			waitUntil(t, p, syncTimeout, lateCG.inf.HasSynced, func() string { return "client-go informer not synced" })
			t.Logf("%s: initial sync of %d objects: typedcache %v, client-go %v",
				m.name, objects, ourSync.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			waitForState(t, p, syncTimeout, want, append(late.stateSources("typedcache (late)"), lateCG.stateSources("client-go (late)")...)...)

			// Update one fifth and delete another fifth.
			const changed = objects / 5
			start = time.Now()
			if err := parallel(2*changed, writers, func(i int) error {
				if i < changed {
					cm := configMap(ns, i)
					cm.Data["phase"] = "updated"
					_, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
					return err
				}
				return cs.CoreV1().ConfigMaps(ns).Delete(ctx, configMap(ns, i).Name, metav1.DeleteOptions{})
			}); err != nil {
				t.Fatalf("update and delete: %v", err)
			}
			want = serverState(t, cs, ns)
			all := append(append(early.stateSources("typedcache (early)"), late.stateSources("typedcache (late)")...),
				append(earlyCG.stateSources("client-go (early)"), lateCG.stateSources("client-go (late)")...)...)
			waitForState(t, p, syncTimeout, want, all...)
			t.Logf("%s: %d updates and %d deletes seen by all four informers %v after the first write",
				m.name, changed, changed, time.Since(start).Round(time.Millisecond))

			for _, o := range []*ours{early, late} {
				o.view.mu.Lock()
				typed, deletes, inferred := o.typed, o.view.deletes, o.view.inferred
				o.view.mu.Unlock()
				if typed.updated != changed || typed.deleted != changed || deletes != changed || inferred != 0 {
					t.Errorf("handler saw %d typed updates, %d typed deletions (%d deletions, %d inferred), want %d, %d (%d, 0)",
						typed.updated, typed.deleted, deletes, inferred, changed, changed, changed)
				}
			}
			for _, pair := range []struct {
				o  *ours
				th *theirs
			}{{early, earlyCG}, {late, lateCG}} {
				sameObjects(t, pair.o, pair.th)
				pair.o.view.check(t, "typedcache")
				pair.th.view.check(t, "client-go")
			}
			m.check(t, "typedcache (late)", late.reqs)
			m.check(t, "client-go (late)", lateCG.reqs)
			for _, err := range early.errors() {
				t.Errorf("informer reported an error: %v", err)
			}
		})
	}
}

func (o *ours) stateSources(name string) []stateSource {
	return []stateSource{{name + " cache", o.cache}, {name + " handler", o.view.snapshot}}
}

func (th *theirs) stateSources(name string) []stateSource {
	return []stateSource{{name + " cache", th.cache}, {name + " handler", th.view.snapshot}}
}

// sameObjects checks that both caches hold semantically equal objects.
func sameObjects(t *testing.T, o *ours, th *theirs) {
	t.Helper()
	n := 0
	for k, cm := range o.inf.Cache().All() {
		obj, ok, err := th.inf.GetStore().GetByKey(k)
		if err != nil || !ok {
			t.Errorf("client-go's cache lacks %s", k)
			continue
		}
		if !equality.Semantic.DeepEqual(cm, obj.(*corev1.ConfigMap)) {
			t.Errorf("caches disagree on %s:\ntypedcache %+v\nclient-go %+v", k, cm, obj)
		}
		n++
	}
	if m := len(th.inf.GetStore().ListKeys()); n != m {
		t.Errorf("typedcache caches %d objects, client-go %d", n, m)
	}
}

// createN creates n configmaps in ns.
func createN(t testing.TB, cs kubernetes.Interface, ns string, from, n int) {
	t.Helper()
	if err := parallel(n, writers, func(i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(ns, from+i), metav1.CreateOptions{})
		return err
	}); err != nil {
		t.Fatalf("create: %v", err)
	}
}
