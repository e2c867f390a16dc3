package kube

import (
	"errors"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
)

// ErrUnknownKind is wrapped by the error of KindOf, and so of Owns, for a
// Go type that client-go's scheme does not register under exactly one
// group and kind: a custom resource's type (give its kind to OwnsKind),
// *unstructured.Unstructured or *metav1.PartialObjectMetadata.
var ErrUnknownKind = errors.New("kube: type not registered in client-go's scheme")

// KindOf returns the group and kind of the Kubernetes objects of type O,
// as client-go's scheme (k8s.io/client-go/kubernetes/scheme.Scheme)
// registers them: apps/Deployment for *appsv1.Deployment. It returns an
// error wrapping ErrUnknownKind for a type the scheme does not know, or
// knows under several groups or kinds.
func KindOf[O Object]() (schema.GroupKind, error) {
	t := reflect.TypeFor[O]()
	if t.Kind() != reflect.Pointer {
		return schema.GroupKind{}, fmt.Errorf("%w: %v is not a pointer to a struct", ErrUnknownKind, t)
	}
	var obj O
	reflect.ValueOf(&obj).Elem().Set(reflect.New(t.Elem()))
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupKind{}, fmt.Errorf("%w: %v: %w", ErrUnknownKind, t, err)
	}
	gk := gvks[0].GroupKind()
	for _, gvk := range gvks[1:] {
		if gvk.GroupKind() != gk {
			return schema.GroupKind{}, fmt.Errorf("%w: %v is registered as %v and %v", ErrUnknownKind, t, gk, gvk.GroupKind())
		}
	}
	return gk, nil
}

// Owns makes c queue the controller owner of the objects of owned: every
// event of an object of owned that passes preds queues the key of the
// object of type O that its controller reference names (the owner
// reference with Controller set, as metav1.GetControllerOf finds it), in
// the object's own namespace, as controller-runtime's Owns does:
//
//	err := kube.Owns[*corev1.ConfigMap](c, secrets) // c reconciles ConfigMaps
//
// O's group and kind come from client-go's scheme (KindOf); Owns returns
// an error wrapping ErrUnknownKind, and watches nothing, for a type the
// scheme does not know: give a custom resource's kind to OwnsKind. The
// references are matched on group and kind, whatever their version.
//
// Owns is controller.Watches with ControllerOwnerKeys as its map function,
// so an update queues the owners of both states (a change of controller
// queues the old owner and the new one), and a deletion queues the owner
// of the object's last state (none when that state is unknown). An object
// without a controller reference, or whose controller is of another kind,
// queues nothing, and so does an object with no namespace: a namespaced
// owner cannot own it. Owns is for owners in a namespace, the common
// case; for a cluster-scoped owner, whose key is its name alone, write
// the map function with metav1.GetControllerOfNoCopy and pass it to
// controller.Watches.
func Owns[O Object, T Object](c *controller.Controller[string], owned *informer.Informer[T], preds ...controller.Predicate[T]) error {
	gk, err := KindOf[O]()
	if err != nil {
		return fmt.Errorf("kube: Owns: %w", err)
	}
	return OwnsKind(c, owned, gk, preds...)
}

// OwnsKind is Owns for owners of the given group and kind, such as a
// custom resource's (schema.GroupKind{Group: "example.com", Kind:
// "Foo"}). It returns an error for an empty kind.
func OwnsKind[T Object](c *controller.Controller[string], owned *informer.Informer[T], owner schema.GroupKind, preds ...controller.Predicate[T]) error {
	if owner.Kind == "" {
		return errors.New("kube: OwnsKind: empty owner kind")
	}
	return controller.Watches(c, owned, ControllerOwnerKeys[T](owner), preds...)
}

// ControllerOwnerKeys returns the map function of Owns and OwnsKind: it
// returns the key (keys.Join of the object's namespace and the owner's
// name) of obj's controller owner if that owner is of the group and kind
// owner, and nothing otherwise, or if obj has no namespace; obj must not
// be nil (Watches never passes a deletion's unknown state). Pass it to
// controller.Watches for a controller of string keys, or convert its
// keys for a controller of another key type.
func ControllerOwnerKeys[T metav1.Object](owner schema.GroupKind) func(obj T) []string {
	return func(obj T) []string {
		ns := obj.GetNamespace()
		if ns == "" {
			return nil
		}
		ref := metav1.GetControllerOfNoCopy(obj)
		if ref == nil || !isKind(ref, owner) {
			return nil
		}
		return []string{keys.Join(ns, ref.Name)}
	}
}

// isKind reports whether ref names an object of the group and kind gk,
// in any version.
func isKind(ref *metav1.OwnerReference, gk schema.GroupKind) bool {
	if ref.Kind != gk.Kind {
		return false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == gk.Group
}
