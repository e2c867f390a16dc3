package kube

import (
	"fmt"
	"reflect"
)

// itemsFunc returns the items of a list of type L as pointers into the
// list's own Items slice: no object is copied. It reports false for a nil
// list.
type itemsFunc[T any, L any] func(list L) ([]T, bool)

// newItemsFunc checks that L is a pointer to a struct whose Items field is
// a slice of E with T = *E, as for every generated list type
// (*corev1.PodList has Items []corev1.Pod), the dynamic client's
// *unstructured.UnstructuredList and the metadata client's
// *metav1.PartialObjectMetadataList, and returns the function that extracts
// them.
func newItemsFunc[T any, L any]() (itemsFunc[T, L], error) {
	lt, tt := reflect.TypeFor[L](), reflect.TypeFor[T]()
	if lt.Kind() != reflect.Pointer || lt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("kube: list type %v is not a pointer to a struct", lt)
	}
	field, ok := lt.Elem().FieldByName("Items")
	if !ok || field.Type.Kind() != reflect.Slice {
		return nil, fmt.Errorf("kube: list type %v has no Items slice", lt)
	}
	if tt.Kind() != reflect.Pointer || tt.Elem() != field.Type.Elem() {
		return nil, fmt.Errorf("kube: list type %v holds %v, so the object type must be %v, not %v",
			lt, field.Type.Elem(), reflect.PointerTo(field.Type.Elem()), tt)
	}
	index := field.Index
	return func(list L) ([]T, bool) {
		v := reflect.ValueOf(list)
		if !v.IsValid() || v.IsNil() {
			return nil, false
		}
		items := v.Elem().FieldByIndex(index)
		out := make([]T, items.Len())
		dst := reflect.ValueOf(out)
		for i := range out {
			// &items[i] is an *E, which newItemsFunc checked to be T.
			dst.Index(i).Set(items.Index(i).Addr())
		}
		return out, true
	}, nil
}
