package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/typedcache/typedcache/informer"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestControllerAgainstServer runs the controller against the server of
// TYPEDCACHE_KUBECONFIG (scripts/kube-apiserver/ci starts one) and checks
// that it stamps a Deployment when it starts, again when its ConfigMap
// changes and when it is deleted, and leaves alone a Deployment that uses
// no ConfigMap: alone, and as three sharded replicas (-replicas 3), which
// delete their Leases when they stop.
func TestControllerAgainstServer(t *testing.T) {
	kubeconfig := os.Getenv("TYPEDCACHE_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("TYPEDCACHE_KUBECONFIG is not set: skipping the real-server test")
	}
	for _, replicas := range []int{0, 3} {
		t.Run(fmt.Sprintf("replicas=%d", replicas), func(t *testing.T) { testAgainstServer(t, kubeconfig, replicas) })
	}
}

func testAgainstServer(t *testing.T, kubeconfig string, replicas int) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := fmt.Sprintf("kubecontroller-%d", time.Now().UnixNano()%1e9)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-config"}, Data: map[string]string{"greeting": "hello"}}
	must(client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}))
	must(client.AppsV1().Deployments(ns).Create(ctx, newDeployment("web", "app-config"), metav1.CreateOptions{}))
	must(client.AppsV1().Deployments(ns).Create(ctx, newDeployment("plain", ""), metav1.CreateOptions{}))
	t.Cleanup(func() {
		ctx := context.Background()
		_ = client.AppsV1().Deployments(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = client.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	})

	w, err := client.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, cfg, config{namespace: ns, workers: 2, replicas: replicas}, slog.New(failOnMutation{t}))
	}()

	first := waitForHash(t, w, "", "after start")
	cm.Data["greeting"] = "bonjour"
	must(client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}))
	second := waitForHash(t, w, first, "after the ConfigMap changed")
	must(nil, client.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}))
	waitForHash(t, w, second, "after the ConfigMap was deleted")

	plain, err := client.AppsV1().Deployments(ns).Get(ctx, "plain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := plain.Spec.Template.Annotations[hashAnnotation]; ok {
		t.Errorf("deployment without ConfigMaps got hash %q", h)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	leases, err := client.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(leases.Items); n != 0 {
		t.Errorf("%d Leases left after the replicas stopped, want them deleted", n)
	}
}

// waitForHash reads w until the "web" Deployment carries a hash other
// than old, and returns it.
func waitForHash(t *testing.T, w watch.Interface, old, when string) string {
	t.Helper()
	for ev := range w.ResultChan() {
		d, ok := ev.Object.(*appsv1.Deployment)
		if !ok || d.Name != "web" {
			continue
		}
		if h := d.Spec.Template.Annotations[hashAnnotation]; h != "" && h != old {
			return h
		}
	}
	t.Fatalf("watch ended before the deployment was stamped %s", when)
	return ""
}

func newDeployment(name, configMap string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	c := corev1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
	if configMap != "" {
		c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
			},
		},
	}
}

// failOnMutation is a slog.Handler that fails the test on a record that
// carries a *informer.CacheMutationError, which the factory's informers log
// when the cache mutation detector (on in TestMain) finds a modified cached
// object, and drops every other record.
type failOnMutation struct{ t *testing.T }

func (h failOnMutation) Enabled(context.Context, slog.Level) bool { return true }

func (h failOnMutation) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok {
			if _, ok := errors.AsType[*informer.CacheMutationError](err); ok {
				h.t.Error(err)
			}
		}
		return true
	})
	return nil
}

func (h failOnMutation) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h failOnMutation) WithGroup(string) slog.Handler      { return h }
