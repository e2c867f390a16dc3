package kube_test

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/queue"
)

var discard = slog.New(slog.DiscardHandler)

// mirror is the controller of the whole-controller tests: for every
// ConfigMap it keeps a Secret of the same name and namespace with the same
// data, controlled by the ConfigMap, writing through the clientset and
// reading from the informers' caches.
type mirror struct {
	cs         kubernetes.Interface
	configMaps *informer.Informer[*corev1.ConfigMap]
	secrets    *informer.Informer[*corev1.Secret]

	mu         sync.Mutex
	reconciled []string
}

// newMirror builds the mirror controller on m, its informers over m's
// clientset.
func newMirror(t *testing.T, m *kube.Manager) (*mirror, *controller.Controller[string]) {
	t.Helper()
	r := &mirror{
		cs:         m.Clientset,
		configMaps: kube.For[*corev1.ConfigMap](m.Factory, m.Clientset.CoreV1().ConfigMaps("")),
		secrets:    kube.For[*corev1.Secret](m.Factory, m.Clientset.CoreV1().Secrets("")),
	}
	if err := kube.AddOwnerIndex(r.secrets); err != nil {
		t.Fatal(err)
	}
	c := controller.New("mirror", r.reconcile, controller.Options[string]{Logger: discard})
	if err := controller.For(c, r.configMaps); err != nil {
		t.Fatal(err)
	}
	if err := kube.Owns[*corev1.ConfigMap](c, r.secrets); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(c); err != nil {
		t.Fatal(err)
	}
	return r, c
}

func (r *mirror) reconcile(ctx context.Context, key string) (queue.Result, error) {
	r.mu.Lock()
	r.reconciled = append(r.reconciled, key)
	r.mu.Unlock()
	cm, ok := r.configMaps.Cache().GetByKey(key)
	if !ok {
		return queue.Result{}, nil // the garbage collector deletes the Secret
	}
	want := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       cm.Namespace,
			Name:            cm.Name,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
		},
		StringData: cm.Data,
	}
	owned, err := kube.OwnedBy(r.secrets.Cache(), cm)
	if err != nil {
		return queue.Result{}, err
	}
	secrets := r.cs.CoreV1().Secrets(cm.Namespace)
	if len(owned) == 0 {
		_, err := secrets.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return queue.Result{}, nil // not in the cache yet: its event queues cm again
		}
		return queue.Result{}, err
	}
	if got := owned[0]; !maps.Equal(got.StringData, cm.Data) {
		want.ResourceVersion = got.ResourceVersion
		_, err := secrets.Update(ctx, want, metav1.UpdateOptions{})
		return queue.Result{}, err
	}
	return queue.Result{}, nil
}

// take returns the keys reconciled since the last call, sorted, without
// repeats.
func (r *mirror) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := slices.Compact(slices.Sorted(slices.Values(r.reconciled)))
	r.reconciled = nil
	return keys
}

// runManager runs m until the test ends, checking that Run returns nil.
func runManager(t *testing.T, m *kube.Manager) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	})
}

// settle waits until every change made has reached c and c is idle.
func settle(t *testing.T, c *controller.Controller[string]) {
	t.Helper()
	synctest.Wait()
	if err := c.WaitIdle(t.Context()); err != nil {
		t.Fatalf("WaitIdle() = %v", err)
	}
}

func configMap(ns, name, uid string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}, Data: data}
}

// TestControllerOverFakeClientset runs a whole controller (manager,
// informers over client-go's fake clientset, Owns, the owner index, the
// queue, a reconcile that writes through the clientset) and checks, after
// each change, that it repaired what the change broke, with no sleeps:
// the fake's watches work in a synctest bubble, so synctest.Wait and
// WaitIdle tell when the controller is done.
func TestControllerOverFakeClientset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := fake.NewClientset(
			configMap("ns", "a", "uid-a", map[string]string{"k": "1"}),
			configMap("other", "a", "uid-other-a", map[string]string{"k": "2"}),
		)
		m, err := kube.NewManagerForClientset(cs, kube.ManagerOptions{Factory: informer.FactoryOptions{Logger: discard}})
		if err != nil {
			t.Fatal(err)
		}
		r, c := newMirror(t, m)
		runManager(t, m)
		ctx := t.Context()
		secrets := cs.CoreV1().Secrets("ns")
		checkSecret := func(step string, want map[string]string) {
			t.Helper()
			s, err := secrets.Get(ctx, "a", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: Get(ns/a) = %v", step, err)
			}
			if diff := cmp.Diff(want, s.StringData); diff != "" {
				t.Errorf("%s: Secret's data mismatch (-want +got):\n%s", step, diff)
			}
			cm, _ := r.configMaps.Cache().GetByKey("ns/a")
			owned, err := kube.OwnedBy(r.secrets.Cache(), cm)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"a"}, names(owned)); diff != "" {
				t.Errorf("%s: OwnedBy(ns/a) mismatch (-want +got):\n%s", step, diff)
			}
		}

		settle(t, c)
		checkSecret("initial list", map[string]string{"k": "1"})
		if diff := cmp.Diff([]string{"ns/a", "other/a"}, r.take()); diff != "" {
			t.Errorf("initial list: reconciled keys mismatch (-want +got):\n%s", diff)
		}

		steps := []struct {
			name   string
			change func() error
			want   map[string]string
		}{
			{"the owned Secret changed", func() error {
				s, err := secrets.Get(ctx, "a", metav1.GetOptions{})
				if err != nil {
					return err
				}
				s.StringData = map[string]string{"k": "tampered"}
				_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
				return err
			}, map[string]string{"k": "1"}},
			{"the owned Secret deleted", func() error {
				return secrets.Delete(ctx, "a", metav1.DeleteOptions{})
			}, map[string]string{"k": "1"}},
			{"the owner changed", func() error {
				_, err := cs.CoreV1().ConfigMaps("ns").Update(ctx, configMap("ns", "a", "uid-a", map[string]string{"k": "3"}), metav1.UpdateOptions{})
				return err
			}, map[string]string{"k": "3"}},
		}
		for _, s := range steps {
			if err := s.change(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			settle(t, c)
			checkSecret(s.name, s.want)
			// Only the owner in ns is queued: other/a, of the same name
			// in another namespace, is not.
			if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
				t.Errorf("%s: reconciled keys mismatch (-want +got):\n%s", s.name, diff)
			}
		}

		// A Secret controlled by an object of another kind queues nothing.
		foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foreign", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "a", UID: "uid-d", Controller: new(true)},
		}}}
		if _, err := secrets.Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		settle(t, c)
		if got := r.take(); len(got) != 0 {
			t.Errorf("Secret of another owner kind: reconciled %v, want nothing", got)
		}
	})
}
