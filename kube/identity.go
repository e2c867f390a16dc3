package kube

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Identity returns what the source lists and watches, for
// informer.Factory (it implements reflector.Identifier): the kind of
// client, the resource, the namespace and the selectors, as in
//
//	dynamic client, apps/v1 deployments, namespace "web", labels "tier=front"
//
// A typed client's resource is its object type, which the factory knows:
// its identity names the client kind, the namespace and the selectors. It
// returns "" when the source cannot tell its resource or namespace: a
// Source over the dynamic or metadata client's resource interface, or over
// a client that does not report its namespace. The factory then shares the
// source's informer only with that same *ListerWatcher.
func (s *ListerWatcher[T, L]) Identity() string { return s.identity }

// namespaceGetter and fakeNamespace are how generated typed clients report
// their namespace: gentype.Client, and gentype.FakeClient in the fakes.
type (
	namespaceGetter interface{ GetNamespace() string }
	fakeNamespace   interface{ Namespace() string }
)

// typedIdentity returns the identity of a Source over client, or "" if
// the client does not report its namespace or T is one of the types that
// serve any resource.
func typedIdentity[T Object](client any, opts Options) string {
	switch reflect.TypeFor[T]() {
	case reflect.TypeFor[*unstructured.Unstructured](), reflect.TypeFor[*metav1.PartialObjectMetadata]():
		return ""
	}
	var ns string
	switch c := client.(type) {
	case namespaceGetter:
		ns = c.GetNamespace()
	case fakeNamespace:
		ns = c.Namespace()
	default:
		return ""
	}
	return identity("typed client", nil, ns, opts)
}

// identity formats an identity; resource is nil for typed clients, and
// opts.MapSharing is resolved.
func identity(kind string, resource *schema.GroupVersionResource, namespace string, opts Options) string {
	var b strings.Builder
	b.WriteString(kind)
	if resource != nil {
		fmt.Fprintf(&b, ", %s %s", resource.GroupVersion(), resource.Resource)
	}
	if namespace != "" {
		fmt.Fprintf(&b, ", namespace %q", namespace)
	}
	if opts.LabelSelector != "" {
		fmt.Fprintf(&b, ", labels %q", opts.LabelSelector)
	}
	if opts.FieldSelector != "" {
		fmt.Fprintf(&b, ", fields %q", opts.FieldSelector)
	}
	if opts.DropManagedFields {
		b.WriteString(", without managedFields")
	}
	if opts.MapSharing == ShareAllMaps { // resolved by the caller
		b.WriteString(", maps shared")
	}
	return b.String()
}
