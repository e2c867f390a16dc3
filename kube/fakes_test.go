package kube_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// fakeTimeout bounds every wait of the tests over client-go's fakes. It is
// generous: the fakes answer at once, and these waits are not timings.
const fakeTimeout = time.Minute

var (
	configMaps = corev1.SchemeGroupVersion.WithResource("configmaps")
	secrets    = corev1.SchemeGroupVersion.WithResource("secrets")
)

// writer makes a create, an update and a delete of one named object
// through a fake client.
type writer struct {
	create, update, del func(ctx context.Context, name string) error
}

// seen records what an informer's handler was told, by name.
type seen struct {
	added, updated, deleted chan string
}

func newSeen() *seen {
	return &seen{added: make(chan string, 10), updated: make(chan string, 10), deleted: make(chan string, 10)}
}

func handlerFor[T kube.Object](s *seen) informer.HandlerFuncs[T] {
	return informer.HandlerFuncs[T]{
		AddFunc:    func(o T, _ bool) { s.added <- o.GetName() },
		UpdateFunc: func(_, o T) { s.updated <- o.GetName() },
		DeleteFunc: func(d informer.Deleted[T]) { s.deleted <- d.Key },
	}
}

// await fails the test unless ch delivers want within fakeTimeout.
func await(t *testing.T, what string, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: nothing after %v, want %q", what, fakeTimeout, want)
	}
}

// fakeCase is an informer over one of client-go's fake clients, which
// holds configmap "old" in namespace "ns" when the informer starts.
type fakeCase struct {
	name string
	// start creates the informer in f and adds h; it returns the source's
	// capabilities and the writer of the fake.
	start func(t *testing.T, f *informer.Factory, s *seen) (reflector.Capabilities, writer)
	// streams says that the source declares streaming lists: a fake that
	// hides behind a wrapper, found out by the reflector's idle timeout.
	streams bool
}

func typedFake() fakeCase {
	return fakeCase{name: "typed (fake.NewClientset)", start: func(t *testing.T, f *informer.Factory, s *seen) (reflector.Capabilities, writer) {
		cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old"}})
		c := cs.CoreV1().ConfigMaps("ns")
		src := kube.Source[*corev1.ConfigMap](c)
		mustAddHandler(t, kube.For[*corev1.ConfigMap](f, c), handlerFor[*corev1.ConfigMap](s))
		return src.Capabilities(), typedWriter(c)
	}}
}

// typedWriter writes configmaps through a typed client.
func typedWriter(c typedcorev1.ConfigMapInterface) writer {
	return writer{
		create: func(ctx context.Context, name string) error {
			_, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{})
			return err
		},
		update: func(ctx context.Context, name string) error {
			_, err := c.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"k": "v"}}, metav1.UpdateOptions{})
			return err
		},
		del: func(ctx context.Context, name string) error { return c.Delete(ctx, name, metav1.DeleteOptions{}) },
	}
}

func unstructuredConfigMap(name string, data map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": "ns", "name": name},
	}}
	if data != nil {
		u.Object["data"] = data
	}
	return u
}

// dynamicFake builds the source with Dynamic, or with Source over the
// resource interface when viaSource is set.
func dynamicFake(viaSource bool) fakeCase {
	name := "dynamic (kube.Dynamic)"
	if viaSource {
		name = "dynamic (kube.Source over Resource(gvr).Namespace(ns))"
	}
	return fakeCase{name: name, start: func(t *testing.T, f *informer.Factory, s *seen) (reflector.Capabilities, writer) {
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{configMaps: "ConfigMapList"}, unstructuredConfigMap("old", nil))
		c := dyn.Resource(configMaps).Namespace("ns")
		var src *kube.ListerWatcher[*unstructured.Unstructured, *unstructured.UnstructuredList]
		if viaSource {
			src = kube.Source[*unstructured.Unstructured](c)
		} else {
			src = kube.Dynamic(dyn, configMaps, "ns", kube.Options{})
		}
		mustAddHandler(t, informer.For(f, src), handlerFor[*unstructured.Unstructured](s))
		return src.Capabilities(), writer{
			create: func(ctx context.Context, name string) error {
				_, err := c.Create(ctx, unstructuredConfigMap(name, nil), metav1.CreateOptions{})
				return err
			},
			update: func(ctx context.Context, name string) error {
				_, err := c.Update(ctx, unstructuredConfigMap(name, map[string]any{"k": "v"}), metav1.UpdateOptions{})
				return err
			},
			del: func(ctx context.Context, name string) error { return c.Delete(ctx, name, metav1.DeleteOptions{}) },
		}
	}}
}

func partialConfigMap(name string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels},
	}
}

// metadataFake builds the source with Metadata, or with Source over the
// resource interface when viaSource is set.
func metadataFake(viaSource bool) fakeCase {
	name := "metadata (kube.Metadata)"
	if viaSource {
		name = "metadata (kube.Source over Resource(gvr).Namespace(ns))"
	}
	return fakeCase{name: name, start: func(t *testing.T, f *informer.Factory, s *seen) (reflector.Capabilities, writer) {
		sch := metadatafake.NewTestScheme()
		if err := metav1.AddMetaToScheme(sch); err != nil {
			t.Fatal(err)
		}
		mc := metadatafake.NewSimpleMetadataClient(sch, partialConfigMap("old", nil))
		c := mc.Resource(configMaps).Namespace("ns")
		var src *kube.ListerWatcher[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList]
		if viaSource {
			src = kube.Source[*metav1.PartialObjectMetadata](c)
		} else {
			src = kube.Metadata(mc, configMaps, "ns", kube.Options{})
		}
		mustAddHandler(t, informer.For(f, src), handlerFor[*metav1.PartialObjectMetadata](s))
		fc := c.(metadatafake.MetadataClient)
		return src.Capabilities(), writer{
			create: func(_ context.Context, name string) error {
				_, err := fc.CreateFake(partialConfigMap(name, nil), metav1.CreateOptions{})
				return err
			},
			update: func(_ context.Context, name string) error {
				_, err := fc.UpdateFake(partialConfigMap(name, map[string]string{"k": "v"}), metav1.UpdateOptions{})
				return err
			},
			del: func(ctx context.Context, name string) error { return c.Delete(ctx, name, metav1.DeleteOptions{}) },
		}
	}}
}

// hiddenClient wraps a client behind an interface, so that nothing shows
// that a fake is behind it.
type hiddenClient struct {
	kube.Client[*corev1.ConfigMapList]
}

// hiddenFake is a typed fake the source cannot recognise: it declares
// streaming lists, and the reflector's idle timeout finds out that the
// fake never ends them. The timeout is shortened to keep the test short.
func hiddenFake() fakeCase {
	return fakeCase{name: "typed, hidden behind a wrapper", streams: true, start: func(t *testing.T, f *informer.Factory, s *seen) (reflector.Capabilities, writer) {
		cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old"}})
		c := cs.CoreV1().ConfigMaps("ns")
		src := kube.Source[*corev1.ConfigMap](hiddenClient{c})
		inf := informer.ForWithOptions(f, src, informer.Options[*corev1.ConfigMap]{
			Reflector: reflector.Tuning{StreamingListIdleTimeout: 100 * time.Millisecond},
		})
		mustAddHandler(t, inf, handlerFor[*corev1.ConfigMap](s))
		return src.Capabilities(), typedWriter(c)
	}}
}

// TestFakeClients runs an informer over each of client-go's fake clients:
// it syncs, without streaming lists (the fakes cannot stream), and sees a
// create, an update and a delete made through the fake afterwards.
func TestFakeClients(t *testing.T) {
	for _, tc := range []fakeCase{
		typedFake(), dynamicFake(false), dynamicFake(true), metadataFake(false), metadataFake(true), hiddenFake(),
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := informer.NewFactory(informer.FactoryOptions{})
			defer f.Shutdown()
			s := newSeen()
			caps, w := tc.start(t, f, s)
			if caps.StreamingList != tc.streams {
				t.Errorf("Capabilities().StreamingList = %v, want %v", caps.StreamingList, tc.streams)
			}
			ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
			defer cancel()
			f.Start(ctx)
			if err := f.WaitForSync(ctx); err != nil {
				t.Fatalf("WaitForSync: %v", err)
			}
			await(t, "initial add", s.added, "old")
			for _, step := range []struct {
				what string
				do   func(context.Context, string) error
				ch   chan string
				want string
			}{
				{"create", w.create, s.added, "new"},
				{"update", w.update, s.updated, "new"},
				{"delete", w.del, s.deleted, "ns/new"},
			} {
				if err := step.do(ctx, "new"); err != nil {
					t.Fatalf("%s through the fake: %v", step.what, err)
				}
				await(t, step.what, step.ch, step.want)
			}
		})
	}
}

func mustAddHandler[T kube.Object](t *testing.T, inf *informer.Informer[T], h informer.HandlerFuncs[T]) {
	t.Helper()
	if _, err := inf.AddEventHandler(h); err != nil {
		t.Fatal(err)
	}
}
