package main

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube/shard"
)

// TestControllerOverFakeClientset runs the whole program (Managers,
// informers, the ConfigMap mapping, the queue, reconcile) over client-go's
// fake clientset, alone and as two sharded replicas whose Leases are in
// the fake clientset too: it stamps a Deployment when it starts, again
// when its ConfigMap changes and when it is deleted, and leaves alone a
// Deployment that uses no ConfigMap. It waits with Controller.WaitIdle in
// a synctest bubble: no sleeps on the real clock.
func TestControllerOverFakeClientset(t *testing.T) {
	for _, replicas := range []int{0, 2} {
		t.Run(fmt.Sprintf("replicas=%d", replicas), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testOverFake(t, replicas) })
		})
	}
}

func testOverFake(t *testing.T, replicas int) {
	const ns = "default"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-config"}, Data: map[string]string{"greeting": "hello"}}
	web, plain := newDeployment("web", "app-config"), newDeployment("plain", "")
	web.Namespace, plain.Namespace = ns, ns
	client := fake.NewClientset(cm, web, plain)
	logger := slog.New(failOnMutation{t})
	cfg := config{namespace: ns, workers: 2}

	ctx, cancel := context.WithCancel(context.Background())
	var ctls []*controller.Controller[string]
	var dones []chan error
	for i := range max(replicas, 1) {
		var sh *shard.Shard
		if replicas > 0 {
			var err error
			sh, err = shard.New(client.CoordinationV1().Leases(ns), "kubecontroller", fmt.Sprintf("r%d", i), shard.Options{})
			if err != nil {
				t.Fatal(err)
			}
		}
		m, c, err := newReplica(client, cfg, sh, logger)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		ctls, dones = append(ctls, c), append(dones, done)
	}
	// settle waits until every change has reached the controllers and
	// they are idle; sharded replicas first exchange their acks, on the
	// bubble's clock.
	settle := func() {
		t.Helper()
		if replicas > 0 {
			time.Sleep(time.Minute)
		}
		synctest.Wait()
		for _, c := range ctls {
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatalf("WaitIdle: %v", err)
			}
		}
	}
	hash := func(name string) string {
		t.Helper()
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Annotations[hashAnnotation]
	}

	settle()
	first := hash("web")
	if first == "" {
		t.Fatal("web not stamped after start")
	}
	cm.Data["greeting"] = "bonjour"
	if _, err := client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	settle()
	second := hash("web")
	if second == first {
		t.Errorf("web's hash stayed %q after its ConfigMap changed", first)
	}
	if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	settle()
	if third := hash("web"); third == second {
		t.Errorf("web's hash stayed %q after its ConfigMap was deleted", second)
	}
	if h := hash("plain"); h != "" {
		t.Errorf("deployment without ConfigMaps got hash %q", h)
	}
	cancel()
	for _, done := range dones {
		if err := <-done; err != nil {
			t.Errorf("Manager.Run: %v", err)
		}
	}
}
