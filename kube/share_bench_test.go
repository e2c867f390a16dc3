package kube

import (
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkShare measures Share on fresh objects, as a list delivers
// them, 1,024 at a time; building them and collecting the garbage they
// leave are not timed. kind=pod shares the Pods of one template
// (serverPod): their labels, annotations and resource lists all repeat.
// kind=configmap shares ConfigMaps whose labels take 210 combinations and
// whose data takes 32, so that consecutive objects seldom have equal
// maps.
func BenchmarkShare(b *testing.B) {
	b.Run("kind=pod", func(b *testing.B) { benchShare(b, serverPod) })
	b.Run("kind=configmap", func(b *testing.B) { benchShare(b, labelledConfigMap) })
}

func benchShare[T any](b *testing.B, build func(i int) *T) {
	s := newMapSharer(reflect.TypeFor[T]())
	objs := make([]*T, 1024)
	fresh := func() {
		for i := range objs {
			objs[i] = build(i)
		}
		runtime.GC()
	}
	fresh()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(objs) {
			b.StopTimer()
			fresh()
			b.StartTimer()
			i = 0
		}
		s.shareObject(unsafe.Pointer(objs[i]))
		i++
	}
}

// labelledConfigMap is ConfigMap i with three labels, one of 210
// combinations, and three data entries, one of 32 combinations.
func labelledConfigMap(i int) *corev1.ConfigMap {
	data := make(map[string]string, 3)
	for j := range 3 {
		data["key-"+strconv.Itoa(j)] = "value-" + strconv.Itoa((i*7+j*13)%32)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "cm-" + strconv.Itoa(i),
			Labels: map[string]string{
				"app":  "app-" + strconv.Itoa(i%10),
				"tier": []string{"frontend", "backend", "cache"}[i%3],
				"team": "team-" + strconv.Itoa(i%7),
			},
		},
		Data: data,
	}
}
