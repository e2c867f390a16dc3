package kube_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

func TestKindOf(t *testing.T) {
	got := func(f func() (schema.GroupKind, error)) schema.GroupKind {
		t.Helper()
		gk, err := f()
		if err != nil {
			t.Fatal(err)
		}
		return gk
	}
	tests := []struct {
		name string
		got  schema.GroupKind
		want schema.GroupKind
	}{
		{"core group", got(kube.KindOf[*corev1.ConfigMap]), schema.GroupKind{Kind: "ConfigMap"}},
		{"named group", got(kube.KindOf[*appsv1.Deployment]), schema.GroupKind{Group: "apps", Kind: "Deployment"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s: KindOf mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Unregistered is a Kubernetes object client-go's scheme does not know,
// like a custom resource's type.
type Unregistered struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (u *Unregistered) DeepCopyObject() runtime.Object {
	c := *u
	u.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func TestKindOfUnknown(t *testing.T) {
	tests := []struct {
		name string
		kind func() (schema.GroupKind, error)
	}{
		{"custom type", kube.KindOf[*Unregistered]},
		{"unstructured, whose kind is the object's", kube.KindOf[*unstructured.Unstructured]},
		{"partial metadata, whose kind is the object's", kube.KindOf[*metav1.PartialObjectMetadata]},
	}
	for _, tt := range tests {
		if gk, err := tt.kind(); !errors.Is(err, kube.ErrUnknownKind) {
			t.Errorf("%s: KindOf() = %v, %v; want an error wrapping ErrUnknownKind", tt.name, gk, err)
		}
	}
}

func TestOwnsUnknownKind(t *testing.T) {
	c := controller.New("c", nop, controller.Options[string]{})
	secrets := informer.For(informer.NewFactory(informer.FactoryOptions{}), kube.Source[*corev1.Secret](fakeSecrets()))
	if err := kube.Owns[*Unregistered](c, secrets); !errors.Is(err, kube.ErrUnknownKind) {
		t.Errorf("Owns[*Unregistered]() = %v, want an error wrapping ErrUnknownKind", err)
	}
	if err := kube.OwnsKind(c, secrets, schema.GroupKind{Group: "example.com"}); err == nil {
		t.Error("OwnsKind() with an empty kind = nil, want an error")
	}
}

// ref returns an owner reference to the object of kind in apiVersion
// called name, with UID "uid-"+name, a controller reference if ctrl.
func ref(apiVersion, kind, name string, ctrl bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &ctrl}
}

// owned returns a Secret in namespace ns with the given owner references.
func owned(ns string, refs ...metav1.OwnerReference) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s", OwnerReferences: refs}}
}

// ownerCases are owned objects, and the controller owner Owns and
// IndexByOwner find for an owner of kind apps/Deployment: its name, ""
// for none.
var ownerCases = []struct {
	name  string
	obj   *corev1.Secret
	owner string
}{
	{"controller reference", owned("ns", ref("apps/v1", "Deployment", "d", true)), "d"},
	{"controller reference of another version", owned("ns", ref("apps/v1beta2", "Deployment", "d", true)), "d"},
	{"owner reference that is not the controller", owned("ns", ref("apps/v1", "Deployment", "d", false)), ""},
	{"controller among other owners", owned("ns", ref("apps/v1", "Deployment", "x", false), ref("apps/v1", "Deployment", "d", true)), "d"},
	{"controller of another kind", owned("ns", ref("apps/v1", "StatefulSet", "d", true)), ""},
	{"controller of the same kind in another group", owned("ns", ref("example.com/v1", "Deployment", "d", true)), ""},
	{"controller with an invalid apiVersion", owned("ns", ref("a/b/c", "Deployment", "d", true)), ""},
	{"no owner", owned("ns"), ""},
	{"cluster-scoped object, which a namespaced owner cannot own", owned("", ref("apps/v1", "Deployment", "d", true)), ""},
}

func TestControllerOwnerKeys(t *testing.T) {
	mapFn := kube.ControllerOwnerKeys[*corev1.Secret](schema.GroupKind{Group: "apps", Kind: "Deployment"})
	for _, tt := range ownerCases {
		var want []string
		if tt.owner != "" {
			want = []string{tt.obj.Namespace + "/" + tt.owner}
		}
		if diff := cmp.Diff(want, mapFn(tt.obj)); diff != "" {
			t.Errorf("%s: ControllerOwnerKeys()(obj) mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	// The core group's apiVersion has no group part.
	cm := kube.ControllerOwnerKeys[*corev1.Secret](schema.GroupKind{Kind: "ConfigMap"})
	obj := owned("ns", ref("v1", "ConfigMap", "c", true))
	if diff := cmp.Diff([]string{"ns/c"}, cm(obj)); diff != "" {
		t.Errorf("ControllerOwnerKeys(ConfigMap)(obj) mismatch (-want +got):\n%s", diff)
	}
}

func TestIndexByOwner(t *testing.T) {
	for _, tt := range ownerCases {
		if tt.name == "controller of another kind" || tt.name == "controller of the same kind in another group" ||
			tt.name == "controller with an invalid apiVersion" || tt.name == "cluster-scoped object, which a namespaced owner cannot own" {
			continue // the index holds the controller's UID, of any kind and scope: below
		}
		var want []string
		if tt.owner != "" {
			want = []string{"uid-" + tt.owner}
		}
		got, err := kube.IndexByOwner(tt.obj)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: IndexByOwner() mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, obj := range []*corev1.Secret{
		owned("ns", ref("apps/v1", "StatefulSet", "d", true)),
		owned("", ref("v1", "Node", "d", true)),
	} {
		got, err := kube.IndexByOwner(obj)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"uid-d"}, got); diff != "" {
			t.Errorf("IndexByOwner(%v) mismatch (-want +got):\n%s", obj.OwnerReferences[0].Kind, diff)
		}
	}
}

func TestOwnedBy(t *testing.T) {
	cs := fakeSecretsClientset(
		withName(owned("ns", ref("v1", "ConfigMap", "a", true)), "s1"),
		withName(owned("ns", ref("v1", "ConfigMap", "a", true)), "s2"),
		withName(owned("ns", ref("v1", "ConfigMap", "a", false)), "not-controlled"),
		withName(owned("ns", ref("v1", "ConfigMap", "b", true)), "of-b"),
		withName(owned("ns"), "orphan"),
	)
	factory := informer.NewFactory(informer.FactoryOptions{})
	secrets := kube.For[*corev1.Secret](factory, cs.CoreV1().Secrets(""))
	a := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "uid-a"}}
	if _, err := kube.OwnedBy(secrets.Cache(), a); !errors.Is(err, indexer.ErrUnknownIndex) {
		t.Errorf("OwnedBy() without the index = %v, want an error wrapping indexer.ErrUnknownIndex", err)
	}
	for range 2 { // a second call, by another controller sharing the informer, is no error
		if err := kube.AddOwnerIndex(secrets); err != nil {
			t.Fatalf("AddOwnerIndex() = %v", err)
		}
	}
	syncFactory(t, factory)

	tests := []struct {
		name  string
		owner *corev1.ConfigMap
		want  []string
	}{
		{"owner of two", a, []string{"s1", "s2"}},
		{"owner of one", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", UID: "uid-b"}}, []string{"of-b"}},
		{"owner recreated under the same name owns nothing yet", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "uid-new"}}, nil},
		{"owner without UID", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}, nil},
	}
	for _, tt := range tests {
		got, err := kube.OwnedBy(secrets.Cache(), tt.owner)
		if err != nil {
			t.Fatalf("%s: OwnedBy() = %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("%s: OwnedBy() mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}
