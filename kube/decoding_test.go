package kube_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// clientset returns a clientset for a server that is never contacted,
// configured for contentType ("" for client-go's default).
func clientset(t *testing.T, contentType string) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1", ContentConfig: rest.ContentConfig{ContentType: contentType}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestDecodingPathOfPinnedClientGo fails when the direct path does not
// apply to the generated typed clients of the client-go release in go.mod:
// a release that renames the unexported fields the direct path reads
// breaks this test rather than silently making every source slower.
func TestDecodingPathOfPinnedClientGo(t *testing.T) {
	for _, tc := range []struct {
		name        string
		contentType string
		want        kube.DecodingPath
	}{
		{"default content type", "", kube.DirectProtobuf},
		{"protobuf", "application/vnd.kubernetes.protobuf", kube.DirectProtobuf},
		{"JSON", "application/json", kube.DirectJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := clientset(t, tc.contentType)
			want := kube.Decoding{Path: tc.want}
			if diff := cmp.Diff(want, kube.Source[*corev1.ConfigMap](cs.CoreV1().ConfigMaps("ns")).Decoding()); diff != "" {
				t.Errorf("Source[*corev1.ConfigMap](ConfigMaps).Decoding() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, kube.Source[*corev1.Pod](cs.CoreV1().Pods("")).Decoding()); diff != "" {
				t.Errorf("Source[*corev1.Pod](Pods).Decoding() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodingFallback checks the reason each source that reads through
// its client gives.
func TestDecodingFallback(t *testing.T) {
	cs := clientset(t, "")
	fcs := fake.NewClientset()
	for _, tc := range []struct {
		name   string
		source func() kube.Decoding
		reason string
	}{
		{
			name:   "DecodeWithClient",
			source: kube.SourceWithOptions[*corev1.Pod](cs.CoreV1().Pods("ns"), kube.Options{DecodeWithClient: true}).Decoding,
			reason: "Options.DecodeWithClient is set",
		},
		{
			name:   "fake clientset",
			source: kube.Source[*corev1.Pod](fcs.CoreV1().Pods("ns")).Decoding,
			reason: "the client is one of client-go's fakes",
		},
		{
			name:   "fake clientset, DecodeWithClient",
			source: kube.SourceWithOptions[*corev1.ConfigMap](fcs.CoreV1().ConfigMaps("ns"), kube.Options{DecodeWithClient: true}).Decoding,
			reason: "Options.DecodeWithClient is set",
		},
		{
			name:   "YAML",
			source: kube.Source[*corev1.ConfigMap](clientset(t, "application/yaml").CoreV1().ConfigMaps("ns")).Decoding,
			reason: `the client accepts "application/yaml, */*", not only protobuf and JSON`,
		},
		{
			name:   "client of its own",
			source: kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{}).Decoding,
			reason: "*kube_test.fakeClient[*k8s.io/api/core/v1.PodList] is not one of client-go's generated typed clients",
		},
		{
			name:   "Dynamic",
			source: kube.Dynamic(dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), corev1.SchemeGroupVersion.WithResource("pods"), "", kube.Options{}).Decoding,
			reason: "Dynamic reads through the dynamic client",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := kube.Decoding{Path: kube.ClientDecoding, Reason: tc.reason}
			if diff := cmp.Diff(want, tc.source()); diff != "" {
				t.Errorf("Decoding() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodingIsLoggedOnce checks the one record a source logs, on its
// first List or Watch, and that a source never used logs nothing.
func TestDecodingIsLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	opts := kube.Options{Logger: logger}
	kube.SourceWithOptions[*corev1.ConfigMap](clientset(t, "").CoreV1().ConfigMaps("unused"), opts)

	direct := kube.SourceWithOptions[*corev1.Pod](clientset(t, "").CoreV1().Pods("ns"), opts)
	for range 2 { // the server is not there: each call fails
		if _, err := direct.List(t.Context(), reflector.ListOptions{}); err == nil {
			t.Fatal("List from a server that is not there succeeded")
		}
		if _, err := direct.Watch(t.Context(), reflector.WatchOptions{}); err == nil {
			t.Fatal("Watch from a server that is not there succeeded")
		}
	}

	fakePods := kube.SourceWithOptions[*corev1.Pod](fake.NewClientset().CoreV1().Pods(""), opts)
	w, err := fakePods.Watch(t.Context(), reflector.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if _, err := fakePods.List(t.Context(), reflector.ListOptions{}); err != nil {
		t.Fatal(err)
	}

	want := `level=INFO msg="kube source decoding path" type=*v1.Pod path="direct protobuf" source="typed client, namespace \"ns\", maps shared"` + "\n" +
		`level=INFO msg="kube source decoding path" type=*v1.Pod path=client reason="the client is one of client-go's fakes" source="typed client"` + "\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
}
