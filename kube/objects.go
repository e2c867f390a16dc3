package kube

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// errMalformed reports a response the direct path cannot read: not the
// protobuf or JSON the server sends, or objects of another kind.
var errMalformed = errors.New("kube: malformed response")

// protobufUnmarshaler is implemented by the generated API types: Unmarshal
// merges a protobuf message into the object, copying every string and
// byte slice out of its argument.
type protobufUnmarshaler interface {
	Unmarshal(data []byte) error
}

// objectType makes and decodes the objects of a source, *E for T.
type objectType[T Object] struct {
	elem       reflect.Type
	gvk        schema.GroupVersionKind
	apiVersion string // gvk's group and version, as in a response
	listKind   string
	// protobuf reports whether *E has the generated protobuf Unmarshal.
	protobuf bool
	// pb decodes E's protobuf message, interning as it goes; nil when
	// the generated Unmarshal decodes it.
	pb   *pbType
	json jsonCodec
	// dropManaged clears every object's managedFields.
	dropManaged bool
	// strings makes the objects share their repeated strings.
	strings *interner
	// maps is set when the objects decoded will not be modified, so that
	// they may share their maps: the compiled protobuf decoder shares
	// them as it decodes (see pbField.decodeShared), maps those of the
	// objects decoded otherwise.
	maps *mapSharer
}

func newObjectType[T Object](elem reflect.Type, gvk schema.GroupVersionKind, dropManaged bool) *objectType[T] {
	_, pb := reflect.New(elem).Interface().(protobufUnmarshaler)
	strings := newInterner(elem)
	return &objectType[T]{
		elem:        elem,
		gvk:         gvk,
		apiVersion:  gvk.GroupVersion().String(),
		listKind:    gvk.Kind + "List",
		protobuf:    pb,
		pb:          compileIf(pb, elem, dropManaged),
		json:        newJSONCodec(elem, strings, dropManaged),
		dropManaged: dropManaged,
		strings:     strings,
	}
}

// readOnlyObjects returns o for objects that will not be modified: a copy
// of it that decodes them sharing their maps, through maps where the
// compiled protobuf decoder does not decode them, with o's strings.
func (o *objectType[T]) readOnlyObjects(maps *mapSharer) *objectType[T] {
	c := *o
	c.maps = maps
	return &c
}

// new returns a new, zero *E. T is *E, so the pointer reflect.New
// returns is read as a T, without the allocation that setting a T through
// reflection would cost.
func (o *objectType[T]) new() T {
	p := reflect.New(o.elem).UnsafePointer()
	return *(*T)(unsafe.Pointer(&p))
}

// checkKind reports an error unless apiVersion and kind are the object's.
func (o *objectType[T]) checkKind(apiVersion, kind, want string) error {
	if kind != want || apiVersion != o.apiVersion {
		return fmt.Errorf("%w: %s %s, want %s %s", ErrUnexpectedObject, apiVersion, kind, o.apiVersion, want)
	}
	return nil
}

// finish applies the source's options to an object decoded otherwise
// than by the compiled protobuf decoder, shares its repeated strings with
// the objects decoded before it unless its decoder did (stringsShared),
// and its maps too if it is read-only. o.strings.mu must be held.
func (o *objectType[T]) finish(obj T, stringsShared bool) {
	if o.dropManaged {
		obj.SetManagedFields(nil)
	}
	p := reflect.ValueOf(obj).UnsafePointer()
	if !stringsShared {
		o.strings.intern(p)
	}
	if o.maps != nil {
		o.maps.shareObject(p)
	}
}

// compileIf returns the compiled protobuf decoder of elem if it has one
// and ok; with dropManaged, one that skips the object's managedFields.
func compileIf(ok bool, elem reflect.Type, dropManaged bool) *pbType {
	if !ok {
		return nil
	}
	pt := compileProtobuf(elem)
	if pt != nil && dropManaged {
		pt = pt.skippingManagedFields(elem)
	}
	return pt
}

// unmarshal decodes a protobuf message into obj, a new object, and
// finishes it.
func (o *objectType[T]) unmarshal(raw []byte, obj T) error {
	if o.pb == nil {
		if err := any(obj).(protobufUnmarshaler).Unmarshal(raw); err != nil {
			return fmt.Errorf("%w: %v", errMalformed, err)
		}
		o.strings.mu.Lock()
		o.finish(obj, false)
		o.strings.mu.Unlock()
		return nil
	}
	in := o.strings
	in.mu.Lock()
	in.readOnly = o.maps != nil
	err := o.pb.decodeObject(in, o.elem, raw, reflect.ValueOf(obj).UnsafePointer())
	in.mu.Unlock()
	if err != nil {
		return err
	}
	if o.dropManaged {
		obj.SetManagedFields(nil)
	}
	return nil
}

// A decodedEvent is one event of a watch stream as the direct path
// decodes it: Status is set for watch.Error, Object for the other types.
type decodedEvent[T Object] struct {
	Type   watch.EventType
	Object T
	Status *metav1.Status
}

// statusError returns the error a list response that is a Status stands
// for, as client-go's Result.Into would.
func statusError(s *metav1.Status) error {
	if s.Status == metav1.StatusSuccess {
		return fmt.Errorf("%w: a Status of success instead of a list", errMalformed)
	}
	return apierrors.FromObject(s)
}
