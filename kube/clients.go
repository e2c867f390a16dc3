package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
)

// Dynamic returns a ListerWatcher for the objects of resource in namespace
// ("" for every namespace, and for cluster-scoped resources), read through
// the dynamic client:
//
//	crons := informer.For(factory, kube.Dynamic(dyn, cronTabGVR, "", kube.Options{}))
//
// Source over dyn.Resource(gvr) reads the same objects, but cannot tell
// which resource they are: Dynamic's source has an Identity, so a Factory
// shares its informer with every Dynamic source of the same resource,
// namespace and selectors and keeps other resources apart. Streaming lists
// are off for client-go's fake dynamic client.
func Dynamic(client dynamic.Interface, resource schema.GroupVersionResource, namespace string, opts Options) *ListerWatcher[*unstructured.Unstructured, *unstructured.UnstructuredList] {
	var rc Client[*unstructured.UnstructuredList] = client.Resource(resource)
	if namespace != "" {
		rc = client.Resource(resource).Namespace(namespace)
	}
	opts.MapSharing = opts.MapSharing.resolved(false)
	decoding := Decoding{Path: ClientDecoding, Reason: "Dynamic reads through the dynamic client"}
	return newSource[*unstructured.Unstructured](rc, opts, decoding,
		lacksWatchList(client) || lacksWatchList(rc),
		identity("dynamic client", &resource, namespace, opts))
}

// Metadata returns a ListerWatcher for the metadata of the objects of
// resource in namespace ("" for every namespace, and for cluster-scoped
// resources), read through the metadata client: a small cache for large
// objects.
//
//	secrets := informer.For(factory, kube.Metadata(mc, corev1.SchemeGroupVersion.WithResource("secrets"), "", kube.Options{}))
//
// Like Dynamic, its source has an Identity, so a Factory keeps the
// informers of different resources apart although they share one Go type.
// Streaming lists are off for client-go's fake metadata client.
func Metadata(client metadata.Interface, resource schema.GroupVersionResource, namespace string, opts Options) *ListerWatcher[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList] {
	var rc Client[*metav1.PartialObjectMetadataList] = client.Resource(resource)
	if namespace != "" {
		rc = client.Resource(resource).Namespace(namespace)
	}
	opts.MapSharing = opts.MapSharing.resolved(false)
	decoding := Decoding{Path: ClientDecoding, Reason: "Metadata reads through the metadata client"}
	return newSource[*metav1.PartialObjectMetadata](rc, opts, decoding,
		lacksWatchList(client) || lacksWatchList(rc),
		identity("metadata client", &resource, namespace, opts))
}
