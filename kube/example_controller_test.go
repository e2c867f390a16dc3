package kube_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/queue"
)

// ExampleOwns runs a controller that keeps, for every ConfigMap, a Secret
// with its data, controlled by the ConfigMap: kube.Owns queues the
// ConfigMap when its Secret changes or goes, so that the reconcile repairs
// it, and the owner index finds the Secret. Against a cluster, the
// manager comes from kube.NewManager(cfg, ...); here from client-go's fake
// clientset, the way to test a controller that writes through client-go.
func ExampleOwns() {
	cs := fake.NewClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app", UID: "uid-app"},
		Data:       map[string]string{"password": "s3cret"},
	})
	m, err := kube.NewManagerForClientset(cs, kube.ManagerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	configMaps := kube.For[*corev1.ConfigMap](m.Factory, m.Clientset.CoreV1().ConfigMaps(""))
	secrets := kube.For[*corev1.Secret](m.Factory, m.Clientset.CoreV1().Secrets(""))
	if err := kube.AddOwnerIndex(secrets); err != nil {
		fmt.Println(err)
		return
	}

	reconcile := func(ctx context.Context, key string) (queue.Result, error) {
		cm, ok := configMaps.Cache().GetByKey(key)
		if !ok {
			return queue.Result{}, nil // deleted: the garbage collector deletes its Secret
		}
		owned, err := kube.OwnedBy(secrets.Cache(), cm)
		if err != nil || len(owned) > 0 {
			return queue.Result{}, err // a real controller would compare and update
		}
		_, err = m.Clientset.CoreV1().Secrets(cm.Namespace).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:       cm.Namespace,
				Name:            cm.Name,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
			},
			StringData: cm.Data,
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return queue.Result{}, nil // not cached yet: its event queues cm again
		}
		return queue.Result{}, err
	}
	c := controller.New("secret-mirror", reconcile, controller.Options[string]{})
	if err := errors.Join(
		controller.For(c, configMaps),
		kube.Owns[*corev1.ConfigMap](c, secrets),
		m.Add(c),
	); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	if err := c.WaitIdle(ctx); err != nil { // the initial list is reconciled
		fmt.Println(err)
	}
	s, err := cs.CoreV1().Secrets("default").Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
	} else {
		fmt.Println("secret", s.Name, "controlled by", metav1.GetControllerOf(s).Name, "data", s.StringData)
		mapFn := kube.ControllerOwnerKeys[*corev1.Secret](schema.GroupKind{Kind: "ConfigMap"})
		fmt.Println("a change of it queues", mapFn(s))
	}
	cancel()
	fmt.Println("Run:", <-done)
	// Output:
	// secret app controlled by app data map[password:s3cret]
	// a change of it queues [default/app]
	// Run: <nil>
}

// ExampleNewManager is the main function of a controller: a manager for
// the cluster of $KUBECONFIG, with health and readiness endpoints and
// leader election, running one controller until the process is
// interrupted.
func ExampleNewManager() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m, err := kube.NewManager(cfg, kube.ManagerOptions{
		Manager:        controller.ManagerOptions{Addr: ":8081"}, // /healthz, /readyz
		LeaderElection: kube.LeaderElection{Lease: "pod-logger", Namespace: "default"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pods := kube.For[*corev1.Pod](m.Factory, m.Clientset.CoreV1().Pods(""))
	c := controller.New("pod-logger", func(ctx context.Context, key string) (queue.Result, error) {
		if p, ok := pods.Cache().GetByKey(key); ok {
			controller.LoggerFrom(ctx).Info("pod", "phase", p.Status.Phase)
		}
		return queue.Result{}, nil
	}, controller.Options[string]{})
	if err := errors.Join(controller.For(c, pods), m.Add(c)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := m.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
