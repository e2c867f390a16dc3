package kube

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
	corev1 "k8s.io/api/core/v1"
)

// BenchmarkInflate inflates a list of 500 server-shaped Pods in protobuf,
// compressed as the API server compresses (gzip level 1), with
// compress/gzip (what Go's HTTP transport inflates with) and with
// klauspost/compress (what the direct path inflates with), per list;
// MB/s counts the inflated bytes.
func BenchmarkInflate(b *testing.B) {
	list := &corev1.PodList{}
	for i := range 500 {
		list.Items = append(list.Items, *serverPod(i))
	}
	raw, err := list.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := stdgzip.NewWriterLevel(&buf, 1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Write(raw); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	compressed := buf.Bytes()
	out := make([]byte, 32<<10)
	inflate := func(b *testing.B, r io.Reader) {
		for {
			_, err := r.Read(out)
			if err == io.EOF {
				return
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, r := range []struct {
		name string
		open func(io.Reader) (io.Reader, error)
	}{
		{"compress-gzip", func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
		{"klauspost", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
	} {
		b.Run("reader="+r.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				gz, err := r.open(bytes.NewReader(compressed))
				if err != nil {
					b.Fatal(err)
				}
				inflate(b, gz)
			}
		})
	}
}
