package kube_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// ExampleSource caches the pods of a namespace and reads them back,
// typed. Against a real cluster, cs is kubernetes.NewForConfig(cfg); here
// it is client-go's fake clientset, which cannot stream lists: the source
// recognises it and lists instead.
func ExampleSource() {
	cs := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
	)
	factory := informer.NewFactory(informer.FactoryOptions{})
	pods := kube.For[*corev1.Pod](factory, cs.CoreV1().Pods("default"))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx)
	defer factory.Shutdown()
	if err := factory.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	p, _ := pods.Lister().Get("default", "web-1")
	fmt.Println(p.Name, p.Status.Phase)
	fmt.Println(len(pods.Lister().Select(func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })), "running")
	// Output:
	// web-1 Pending
	// 1 running
}
