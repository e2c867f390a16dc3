package kube

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// templatePod is Pod i of a Deployment: the labels, annotations, node
// selector and resources of its template, and a name of its own.
func templatePod(i int) *corev1.Pod {
	resources := func(cpu, mem string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(mem)},
		}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "web", Name: fmt.Sprintf("web-7d4b9c6f5-%05d", i),
			Labels:      map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": "7d4b9c6f5", "version": "v1.27.3"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
		},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"pool": "general"},
			Containers:   []corev1.Container{{Name: "web", Resources: resources("250m", "256Mi")}, {Name: "log-shipper", Resources: resources("50m", "64Mi")}},
		},
	}
}

// BenchmarkShare measures Share on the Pods of one template, whose maps
// all repeat: it allocates nothing.
func BenchmarkShare(b *testing.B) {
	s := newMapSharer(reflect.TypeFor[corev1.Pod]())
	pods := make([]*corev1.Pod, 1024)
	for i := range pods {
		pods[i] = templatePod(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.shareObject(unsafe.Pointer(pods[i%len(pods)]))
		i++
	}
}
