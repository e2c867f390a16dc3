package kube

import (
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkShare measures Share on the Pods of one template (serverPod),
// whose labels, annotations and resource lists all repeat: it allocates
// nothing.
func BenchmarkShare(b *testing.B) {
	s := newMapSharer(reflect.TypeFor[corev1.Pod]())
	pods := make([]*corev1.Pod, 1024)
	for i := range pods {
		pods[i] = serverPod(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.shareObject(unsafe.Pointer(pods[i%len(pods)]))
		i++
	}
}
