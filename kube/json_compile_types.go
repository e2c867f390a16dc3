package kube

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The compiled decoders of the Kubernetes types that decode themselves
// and that every Pod holds: they do what the types' UnmarshalJSON
// methods do, which encoding/json hands the raw value, without the
// copies and the second decoding the methods make.

// quantity decodes a Quantity through its method, parsing each distinct
// quantity once: a string is looked up in the quantities parsed before
// (see interner.quantity; a JSON value and a protobuf message never have
// the same bytes).
func (c *jsonCompiler) quantity() jsonValue {
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return d.in.jsonQuantity(raw, (*resource.Quantity)(p))
	}
}

// jsonQuantity decodes raw, a JSON value, into q as q's UnmarshalJSON
// does, keeping the quantities held in an integer by their string.
func (in *interner) jsonQuantity(raw []byte, q *resource.Quantity) error {
	if raw[0] != '"' || len(raw) > 64 || !quantityFields.ok {
		return q.UnmarshalJSON(raw)
	}
	if c, ok := in.quantities[string(raw)]; ok {
		*q = c
		return nil
	}
	if err := q.UnmarshalJSON(raw); err != nil {
		return err
	}
	if _, _, dec, _, _ := quantityAt(unsafe.Pointer(q)); dec == nil {
		in.keepQuantity(raw, *q)
	}
	return nil
}

// resourceList decodes a ResourceList as encoding/json decodes a map:
// into the map already there if any, each value decoded into a zero
// Quantity, a later duplicate key winning. null goes to the default
// decoding, which clears the map.
func (c *jsonCompiler) resourceList() jsonValue {
	other := c.fallback(resourceListType)
	keys := new(site)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if dec.PeekKind() != '{' {
			return other(d, dec, p)
		}
		m := (*corev1.ResourceList)(p)
		if *m == nil {
			*m = corev1.ResourceList{}
		}
		return readObject(dec, func(name []byte) error {
			key := corev1.ResourceName(d.in.bytes(name, keys))
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			var q resource.Quantity
			if err := d.in.jsonQuantity(raw, &q); err != nil {
				return err
			}
			(*m)[key] = q
			return nil
		})
	}
}

// intOrString decodes an IntOrString as its UnmarshalJSON does: a string
// sets its type and string, a number its type and integer, leaving the
// other field as it was. Anything else (null, a number out of range)
// goes to the method.
func (c *jsonCompiler) intOrString() jsonValue {
	other := c.fallback(intOrStringType)
	st := new(site)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		v := (*intstr.IntOrString)(p)
		switch dec.PeekKind() {
		case '"':
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			v.Type, v.StrVal = intstr.String, d.in.bytes(unquote(raw), st)
			return nil
		case '0':
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			n, err := strconv.ParseInt(unsafe.String(&raw[0], len(raw)), 10, 32)
			if err != nil {
				return json.Unmarshal(raw, reflect.NewAt(intOrStringType, p).Interface(), d.opts)
			}
			v.Type, v.IntVal = intstr.Int, int32(n)
			return nil
		}
		return other(d, dec, p)
	}
}
