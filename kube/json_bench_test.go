package kube

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkJSONList decodes a JSON list response of 500 ConfigMaps or
// Pods as the direct path reads one from the server, and reports the
// time per object.
func BenchmarkJSONList(b *testing.B) {
	const n = 500
	configMaps := &corev1.ConfigMapList{Items: make([]corev1.ConfigMap, n)}
	pods := &corev1.PodList{Items: make([]corev1.Pod, n)}
	for i := range n {
		configMaps.Items[i] = managedConfigMap(i)
		pods.Items[i] = *serverPod(i)
	}
	b.Run("ConfigMap", func(b *testing.B) { jsonListBench(b, configMapType(), configMaps, "ConfigMapList", n) })
	b.Run("Pod", func(b *testing.B) { jsonListBench(b, podType(false), pods, "PodList", n) })
}

func jsonListBench[T Object](b *testing.B, o *objectType[T], list interface{ SetResourceVersion(string) }, kind string, n int) {
	body, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	body = append([]byte(`{"kind":"`+kind+`","apiVersion":"v1",`), body[1:]...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		items, _, err := o.jsonList(bufio.NewReaderSize(bytes.NewReader(body), 32<<10))
		if err != nil || len(items) != n {
			b.Fatalf("%d items, %v", len(items), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}
