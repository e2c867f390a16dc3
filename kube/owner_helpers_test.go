package kube_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/queue"
)

// nop is a reconcile function that does nothing.
func nop(context.Context, string) (queue.Result, error) { return queue.Result{}, nil }

// fakeSecretsClientset returns a fake clientset holding objs.
func fakeSecretsClientset(objs ...*corev1.Secret) *fake.Clientset {
	ros := make([]runtime.Object, len(objs))
	for i, o := range objs {
		ros[i] = o
	}
	return fake.NewClientset(ros...)
}

// fakeSecrets returns the Secrets client of an empty fake clientset.
func fakeSecrets() typedcorev1.SecretInterface { return fake.NewClientset().CoreV1().Secrets("") }

// withName returns s named name.
func withName(s *corev1.Secret, name string) *corev1.Secret {
	s.Name = name
	return s
}

// names returns the sorted names of objs.
func names[T interface{ GetName() string }](objs []T) []string {
	var ns []string
	for _, o := range objs {
		ns = append(ns, o.GetName())
	}
	slices.Sort(ns)
	return ns
}

// syncFactory starts factory and waits until it synced; the test's end
// shuts it down.
func syncFactory(t *testing.T, factory *informer.Factory) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	t.Cleanup(func() {
		cancel()
		if err := factory.Shutdown(); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
	})
	if err := factory.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync() = %v", err)
	}
}
