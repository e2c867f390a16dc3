package kube

import (
	"fmt"
	"reflect"
)

// itemsFunc returns the items of a list of type L, each moved into its own
// allocation (see newItemsFunc). It reports false for a nil list.
type itemsFunc[T any, L any] func(list L) ([]T, bool)

// newItemsFunc checks that L is a pointer to a struct whose Items field is
// a slice of E with T = *E, as for every generated list type
// (*corev1.PodList has Items []corev1.Pod), the dynamic client's
// *unstructured.UnstructuredList and the metadata client's
// *metav1.PartialObjectMetadataList, and returns the function that extracts
// them.
//
// Each item is copied, shallowly, into a new E: its maps, slices and
// strings are shared with the decoded list, not duplicated. Pointing into
// the list's Items instead (&list.Items[i]) would keep each page's whole
// array alive while any of its objects stays cached: the array's spare
// capacity from decoding, and the old state of every object of the page
// that has since been updated or deleted. The copies cost one small
// allocation per listed object and save the heap of those arrays;
// client-go's reflector copies the same way (meta.ExtractListWithAlloc).
func newItemsFunc[T any, L any]() (itemsFunc[T, L], error) {
	lt, tt := reflect.TypeFor[L](), reflect.TypeFor[T]()
	if lt.Kind() != reflect.Pointer || lt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("kube: list type %v is not a pointer to a struct", lt)
	}
	field, ok := lt.Elem().FieldByName("Items")
	if !ok || field.Type.Kind() != reflect.Slice {
		return nil, fmt.Errorf("kube: list type %v has no Items slice", lt)
	}
	elem := field.Type.Elem()
	if tt.Kind() != reflect.Pointer || tt.Elem() != elem {
		return nil, fmt.Errorf("kube: list type %v holds %v, so the object type must be %v, not %v",
			lt, elem, reflect.PointerTo(elem), tt)
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
			p := reflect.New(elem) // an *E, which is T
			p.Elem().Set(items.Index(i))
			dst.Index(i).Set(p)
		}
		return out, true
	}, nil
}
