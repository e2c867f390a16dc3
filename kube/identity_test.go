package kube_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// realClients builds client-go's real clients for a server that is never
// contacted.
func realClients(t *testing.T) (*kubernetes.Clientset, *dynamic.DynamicClient, metadata.Interface) {
	t.Helper()
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, dyn, mc
}

// TestIdentityAndStreaming checks the identity each way of building a
// source gives it, and that client-go's fakes, recognised, declare no
// streaming list.
func TestIdentityAndStreaming(t *testing.T) {
	cs, dyn, mc := realClients(t)
	fcs := fake.NewClientset()
	fdyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	fmc := metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for _, tc := range []struct {
		name      string
		identity  string
		streaming bool
		caps      func() (string, bool)
	}{
		{
			name: "typed client, one namespace", identity: `typed client, namespace "ns", maps shared`, streaming: true,
			caps: sourceOf(kube.Source[*corev1.Pod](cs.CoreV1().Pods("ns"))),
		},
		{
			name: "typed client, all namespaces, selectors", identity: `typed client, labels "app=web", fields "spec.nodeName=n1", maps shared`, streaming: true,
			caps: sourceOf(kube.SourceWithOptions[*corev1.Pod](cs.CoreV1().Pods(""), kube.Options{LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1"})),
		},
		{
			name: "typed client without managedFields", identity: `typed client, namespace "ns", without managedFields, maps shared`, streaming: true,
			caps: sourceOf(kube.SourceWithOptions[*corev1.Pod](cs.CoreV1().Pods("ns"), kube.Options{DropManagedFields: true})),
		},
		{
			name: "typed client keeping its maps", identity: `typed client, namespace "ns"`, streaming: true,
			caps: sourceOf(kube.SourceWithOptions[*corev1.Pod](cs.CoreV1().Pods("ns"), kube.Options{MapSharing: kube.KeepOwnMaps})),
		},
		{
			name: "typed client decoding with the client", identity: `typed client, namespace "ns"`, streaming: true,
			caps: sourceOf(kube.SourceWithOptions[*corev1.Pod](cs.CoreV1().Pods("ns"), kube.Options{DecodeWithClient: true})),
		},
		{
			name: "fake typed client sharing maps", identity: `typed client, namespace "ns", maps shared`,
			caps: sourceOf(kube.SourceWithOptions[*corev1.Pod](fcs.CoreV1().Pods("ns"), kube.Options{MapSharing: kube.ShareAllMaps})),
		},
		{
			name: "fake typed client", identity: `typed client, namespace "ns"`,
			caps: sourceOf(kube.Source[*corev1.Pod](fcs.CoreV1().Pods("ns"))),
		},
		{
			name: "dynamic client", identity: `dynamic client, apps/v1 deployments, namespace "ns"`, streaming: true,
			caps: sourceOf(kube.Dynamic(dyn, deployments, "ns", kube.Options{})),
		},
		{
			name: "fake dynamic client", identity: `dynamic client, apps/v1 deployments`,
			caps: sourceOf(kube.Dynamic(fdyn, deployments, "", kube.Options{})),
		},
		{
			name: "dynamic client sharing maps", identity: `dynamic client, apps/v1 deployments, maps shared`, streaming: true,
			caps: sourceOf(kube.Dynamic(dyn, deployments, "", kube.Options{MapSharing: kube.ShareAllMaps})),
		},
		{
			name: "metadata client", identity: `metadata client, v1 secrets, labels "a=b"`, streaming: true,
			caps: sourceOf(kube.Metadata(mc, secrets, "", kube.Options{LabelSelector: "a=b"})),
		},
		{
			name: "fake metadata client", identity: `metadata client, v1 secrets, namespace "ns"`,
			caps: sourceOf(kube.Metadata(fmc, secrets, "ns", kube.Options{})),
		},
		{
			name: "Source over the dynamic client cannot tell its resource", streaming: true,
			caps: sourceOf(kube.Source[*unstructured.Unstructured](dyn.Resource(deployments).Namespace("ns"))),
		},
		{
			name: "Source over the fake dynamic client",
			caps: sourceOf(kube.Source[*unstructured.Unstructured](fdyn.Resource(deployments))),
		},
		{
			name: "Source over the metadata client cannot tell its resource", streaming: true,
			caps: sourceOf(kube.Source[*metav1.PartialObjectMetadata](mc.Resource(secrets))),
		},
		{
			name: "Source over the fake metadata client",
			caps: sourceOf(kube.Source[*metav1.PartialObjectMetadata](fmc.Resource(secrets).Namespace("ns"))),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Real clients stream unless client-go's feature gate is off.
			tc.streaming = tc.streaming && clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
			id, streaming := tc.caps()
			if id != tc.identity {
				t.Errorf("Identity() = %q, want %q", id, tc.identity)
			}
			if streaming != tc.streaming {
				t.Errorf("Capabilities().StreamingList = %v, want %v", streaming, tc.streaming)
			}
		})
	}
}

// sourceOf returns the identity and streaming capability of src.
func sourceOf[T kube.Object, L kube.ListObject](src *kube.ListerWatcher[T, L]) func() (string, bool) {
	return func() (string, bool) { return src.Identity(), src.Capabilities().StreamingList }
}

// TestFactoryTellsResourcesApart asks one factory for secrets and
// configmaps through the dynamic and the metadata clients, whose objects
// have one Go type for every resource: each resource gets its own
// informer, holding its own objects, and asking again for a resource
// returns its informer.
func TestFactoryTellsResourcesApart(t *testing.T) {
	partial := func(kind, name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: kind},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		}
	}
	sch := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(sch); err != nil {
		t.Fatal(err)
	}
	mc := metadatafake.NewSimpleMetadataClient(sch, partial("Secret", "s1"), partial("ConfigMap", "c1"), partial("ConfigMap", "c2"))
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{configMaps: "ConfigMapList", secrets: "SecretList"},
		unstructuredObject("Secret", "s1"), unstructuredObject("ConfigMap", "c1"), unstructuredObject("ConfigMap", "c2"))

	f := informer.NewFactory(informer.FactoryOptions{})
	defer f.Shutdown()
	metaSecrets := informer.For(f, kube.Metadata(mc, secrets, "", kube.Options{}))
	metaConfigMaps := informer.For(f, kube.Metadata(mc, configMaps, "", kube.Options{}))
	dynSecrets := informer.For(f, kube.Dynamic(dyn, secrets, "", kube.Options{}))
	dynConfigMaps := informer.For(f, kube.Dynamic(dyn, configMaps, "", kube.Options{}))
	// Through Source the factory cannot tell the resource; each source
	// gets an informer of its own.
	srcSecrets := kube.For[*metav1.PartialObjectMetadata](f, mc.Resource(secrets))
	srcConfigMaps := kube.For[*metav1.PartialObjectMetadata](f, mc.Resource(configMaps))

	if metaSecrets == metaConfigMaps || dynSecrets == dynConfigMaps || srcSecrets == srcConfigMaps ||
		srcSecrets == metaSecrets || srcConfigMaps == metaConfigMaps {
		t.Error("two sources of different resources share an informer")
	}
	if again := informer.For(f, kube.Metadata(mc, secrets, "", kube.Options{})); again != metaSecrets {
		t.Error("For(Metadata(secrets)) again returned another informer")
	}
	if again := informer.For(f, kube.Dynamic(dyn, configMaps, "", kube.Options{})); again != dynConfigMaps {
		t.Error("For(Dynamic(configmaps)) again returned another informer")
	}
	if other := informer.For(f, kube.Metadata(mc, secrets, "ns", kube.Options{})); other == metaSecrets {
		t.Error("the secrets of one namespace share the informer of all secrets")
	}

	ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	for _, tc := range []struct {
		name string
		keys []string
		want []string
	}{
		{"metadata secrets", metaSecrets.Cache().ListKeys(), []string{"ns/s1"}},
		{"metadata configmaps", metaConfigMaps.Cache().ListKeys(), []string{"ns/c1", "ns/c2"}},
		{"dynamic secrets", dynSecrets.Cache().ListKeys(), []string{"ns/s1"}},
		{"dynamic configmaps", dynConfigMaps.Cache().ListKeys(), []string{"ns/c1", "ns/c2"}},
		{"Source over metadata secrets", srcSecrets.Cache().ListKeys(), []string{"ns/s1"}},
		{"Source over metadata configmaps", srcConfigMaps.Cache().ListKeys(), []string{"ns/c1", "ns/c2"}},
	} {
		slices.Sort(tc.keys)
		if !slices.Equal(tc.keys, tc.want) {
			t.Errorf("%s informer holds %v, want %v", tc.name, tc.keys, tc.want)
		}
	}
}

func unstructuredObject(kind, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": kind,
		"metadata": map[string]any{"namespace": "ns", "name": name},
	}}
}
