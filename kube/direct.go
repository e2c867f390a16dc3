package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding"
	"fmt"
	"reflect"
	"sync"

	"github.com/go-json-experiment/json"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// direct is the direct path of a typed source: it makes the requests the
// typed client would make, and decodes their responses itself, straight
// from the response body into one allocation per object.
type direct[T Object] struct {
	access  restAccess
	objects *objectType[T]
	// readOnly decodes the objects of requests made with ReadOnly, which
	// share their maps; nil where the source keeps every object's own.
	readOnly *objectType[T]
}

// newDirect returns the direct path for client and its decoding, or nil
// and the reason it does not apply: clients other than client-go's
// generated typed clients over a REST client (the fakes, the dynamic and
// metadata clients, your own), clients configured for a content type
// other than protobuf and JSON, object types it cannot decode as
// client-go does, and Options.DecodeWithClient.
func newDirect[T Object](client any, opts Options) (*direct[T], Decoding) {
	if opts.DecodeWithClient {
		return nil, Decoding{Path: ClientDecoding, Reason: "Options.DecodeWithClient is set"}
	}
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, Decoding{Path: ClientDecoding, Reason: fmt.Sprintf("%s is not a pointer to a struct", t)}
	}
	access, err := restAccessOf(client, t.Elem())
	if err != nil {
		return nil, Decoding{Path: ClientDecoding, Reason: err.Error()}
	}
	if !jsonDecodableType(t.Elem()) {
		return nil, Decoding{Path: ClientDecoding, Reason: fmt.Sprintf("JSON could decode %s differently than client-go: it holds interfaces or has JSON methods of its own", t)}
	}
	d := &direct[T]{access: access, objects: newObjectType[T](t.Elem(), access.gvk, opts.DropManagedFields)}
	return d, Decoding{Path: access.path}
}

// objectsOf returns the decoding of objects that will be read-only or
// not.
func (d *direct[T]) objectsOf(readOnly bool) *objectType[T] {
	if readOnly && d.readOnly != nil {
		return d.readOnly
	}
	return d.objects
}

// list lists one page, decoding the response as it arrives.
func (d *direct[T]) list(ctx context.Context, opts metav1.ListOptions, readOnly bool) ([]T, metav1.ListMeta, error) {
	body, err := d.access.list(ctx, opts)
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	defer body.Close()
	return d.objectsOf(readOnly).decodeList(bufio.NewReaderSize(body, 32<<10))
}

// decodeList decodes a list response, protobuf or JSON, told apart by
// their first bytes as the server only sends those two, inflating it
// first if it is compressed.
func (o *objectType[T]) decodeList(r *bufio.Reader) ([]T, metav1.ListMeta, error) {
	r, done, err := inflated(r)
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	defer done()
	head, _ := r.Peek(len(protobufPrefix))
	if !bytes.Equal(head, protobufPrefix) {
		return o.jsonList(r)
	}
	if !o.protobuf {
		return nil, metav1.ListMeta{}, fmt.Errorf("%w: protobuf for a type without protobuf decoding", errMalformed)
	}
	return o.protobufList(r)
}

// watch starts a watch.
func (d *direct[T]) watch(ctx context.Context, opts metav1.ListOptions, name string, readOnly bool) (*directWatch[T], error) {
	body, err := d.access.watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return newDirectWatch(ctx, d.objectsOf(readOnly), body, name), nil
}

// jsonDecodableTypes caches jsonDecodable by type: it walks the whole type,
// which for a Pod takes longer than building the rest of an informer.
var jsonDecodableTypes sync.Map // reflect.Type -> bool

// jsonDecodableType is jsonDecodable(t), computed once per type.
func jsonDecodableType(t reflect.Type) bool {
	if ok, found := jsonDecodableTypes.Load(t); found {
		return ok.(bool)
	}
	ok := jsonDecodable(t, map[reflect.Type]bool{})
	jsonDecodableTypes.Store(t, ok)
	return ok
}

var (
	jsonUnmarshalerV1 = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	jsonUnmarshalerV2 = reflect.TypeFor[json.UnmarshalerFrom]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// jsonDecodable reports whether JSON decodes into t the same way through
// the direct path as through client-go: t's values hold no interface
// (client-go keeps integers in interfaces as int64, encoding/json as
// float64) and no other JSON method than UnmarshalJSON (both call it
// alike) is declared in it, except inside types that unmarshal
// themselves. seen breaks cycles.
func jsonDecodable(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonUnmarshalerV2) || t.Implements(jsonUnmarshalerV2) {
		return false
	}
	if pt.Implements(jsonUnmarshalerV1) || t.Implements(jsonUnmarshalerV1) {
		return true
	}
	if pt.Implements(textUnmarshaler) || t.Implements(textUnmarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return jsonDecodable(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && jsonDecodable(t.Key(), seen) && jsonDecodable(t.Elem(), seen)
	case reflect.Struct:
		for f := range t.Fields() {
			if (!f.IsExported() && !f.Anonymous) || f.Tag.Get("json") == "-" {
				continue // encoding/json never sets it
			}
			if !jsonDecodable(f.Type, seen) {
				return false
			}
		}
	}
	return true
}
