package kube

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedcache/typedcache/kube/internal/gunzip"
)

// BenchmarkInflate inflates a list of 5,000 ConfigMaps and one of 500
// server-shaped Pods in protobuf, compressed as the API server
// compresses (gzip level 1), read from a stream as a response body is,
// with compress/gzip (what Go's HTTP transport inflates with) and with
// internal/gunzip (what the direct path inflates with), per list; MB/s
// counts the inflated bytes.
func BenchmarkInflate(b *testing.B) {
	configMaps := &corev1.ConfigMapList{}
	for i := range 5000 {
		configMaps.Items = append(configMaps.Items, managedConfigMap(i))
	}
	pods := &corev1.PodList{}
	for i := range 500 {
		pods.Items = append(pods.Items, *serverPod(i))
	}
	readers := []struct {
		name string
		open func(io.Reader) (io.Reader, error)
	}{
		{"compress-gzip", func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
		{"gunzip", func(r io.Reader) (io.Reader, error) { return gunzip.NewReader(r) }},
	}
	out := make([]byte, 32<<10)
	for _, list := range []struct {
		name string
		list interface{ Marshal() ([]byte, error) }
	}{{"ConfigMaps", configMaps}, {"Pods", pods}} {
		raw, err := list.list.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		compressed := gzipped(b, string(raw))
		for _, r := range readers {
			b.Run("list="+list.name+"/reader="+r.name, func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					gz, err := r.open(bufio.NewReader(bytes.NewReader(compressed)))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{gz}, out); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
