package kube

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// metaDecoder decodes an ObjectMeta, the part every object has and most
// of a small one, and the maps of strings elsewhere in an object, from the
// decoder's tokens, sharing their strings as it reads them: a string the
// interner holds is found from the bytes in the decoder's buffer and
// never copied. The caller holds the interner (see decodeJSONObject).
// It keeps encoding/json's semantics (exact field names, unknown fields
// skipped, a later duplicate winning or merging, null leaving a value as
// it is), and hands every value off its fast paths (null, values of the
// wrong kind, fields rarely set) to the default decoding, so that those,
// and their errors, stay the default's.
type metaDecoder struct {
	in *interner
	// opts are the codec's options, for the values decoded the default
	// way; set once the codec that holds the decoder is built.
	opts        json.Options
	dropManaged bool
	sites       metaSites
	// The compiled decoders of the fields of lists.
	owners, finalizers jsonValue
	// The walk that shares the strings of managedFields decoded the
	// default way.
	managed walk[*interner]
}

func newMetaDecoder(in *interner, dropManaged bool) *metaDecoder {
	return &metaDecoder{
		in:          in,
		dropManaged: dropManaged,
		owners:      compileJSON(reflect.TypeFor[[]metav1.OwnerReference]()),
		finalizers:  compileJSON(reflect.TypeFor[[]string]()),
		managed:     compileWalk(reflect.TypeFor[[]metav1.ManagedFieldsEntry](), internLeaf),
	}
}

// metaSites are the interner's sites of an ObjectMeta's strings, and the
// last time each time field parsed.
type metaSites struct {
	name, generateName, namespace, selfLink, uid, resourceVersion site
	labelKey, labelValue, annotationKey, annotationValue          site
	mapKey, mapValue                                              site // of the other maps of strings
	manager, operation, apiVersion, fieldsType, subresource       site
	fieldSet                                                      site
	created, managedTime                                          parsedTime
}

// parsedTime is the last time string a field held, and its value:
// objects created or written in the same second repeat it.
type parsedTime struct {
	text string
	t    time.Time
}

// unmarshal decodes an ObjectMeta object into m; anything but an object
// goes to the default decoding.
func (d *metaDecoder) unmarshal(dec *jsontext.Decoder, m *metav1.ObjectMeta) error {
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	s := &d.sites
	return readObject(dec, func(name []byte) error {
		switch string(name) {
		case "name":
			return d.str(dec, &m.Name, &s.name)
		case "generateName":
			return d.str(dec, &m.GenerateName, &s.generateName)
		case "namespace":
			return d.str(dec, &m.Namespace, &s.namespace)
		case "selfLink":
			//lint:ignore SA1019 decoded as client-go decodes it, while servers still send it
			return d.str(dec, &m.SelfLink, &s.selfLink)
		case "uid":
			return d.str(dec, (*string)(&m.UID), &s.uid)
		case "resourceVersion":
			return d.str(dec, &m.ResourceVersion, &s.resourceVersion)
		case "generation":
			return d.int64(dec, &m.Generation)
		case "creationTimestamp":
			return d.time(dec, &m.CreationTimestamp, &s.created)
		case "labels":
			return d.stringMap(dec, &m.Labels, &s.labelKey, &s.labelValue)
		case "annotations":
			return d.stringMap(dec, &m.Annotations, &s.annotationKey, &s.annotationValue)
		case "managedFields":
			return d.managedFields(dec, &m.ManagedFields)
		case "deletionTimestamp":
			return json.UnmarshalDecode(dec, &m.DeletionTimestamp, d.opts)
		case "deletionGracePeriodSeconds":
			return json.UnmarshalDecode(dec, &m.DeletionGracePeriodSeconds, d.opts)
		case "ownerReferences":
			return d.owners(d, dec, unsafe.Pointer(&m.OwnerReferences))
		case "finalizers":
			return d.finalizers(d, dec, unsafe.Pointer(&m.Finalizers))
		default:
			return dec.SkipValue()
		}
	})
}

// readObject reads the fields of an object, the next value of dec,
// handing each name (valid until the next read) to field, which decodes
// its value.
func readObject(dec *jsontext.Decoder, field func(name []byte) error) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := field(unquote(raw)); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// decodeDefault decodes the next value of dec into *v the default way,
// and shares its strings through walk, the walk of V.
func decodeDefault[V any](d *metaDecoder, dec *jsontext.Decoder, v *V, walk walk[*interner]) error {
	if err := json.UnmarshalDecode(dec, v, d.opts); err != nil {
		return err
	}
	walk(unsafe.Pointer(v), d.in)
	return nil
}

// unquote returns the contents of raw, a JSON string the decoder has
// read, as encoding/json decodes them: within raw, valid until the
// decoder's next read, unless they hold escapes or invalid UTF-8.
func unquote(raw jsontext.Value) []byte {
	if b, ok := plainString(raw); ok {
		return b
	}
	// The decoder has checked the syntax, so the only failure is invalid
	// UTF-8, which encoding/json replaces as the unquoted string does.
	b, _ := jsontext.AppendUnquote(nil, raw)
	return b
}

// plainString returns the contents of raw, a JSON string, if they need
// no decoding: no escape sequence and valid UTF-8.
func plainString(raw []byte) ([]byte, bool) {
	b := raw[1 : len(raw)-1]
	// Eight bytes at a time: a byte of high bit set, or a byte equal to
	// a backslash (zero once xored with backslashes), ends the fast scan.
	const lows, highs, backslashes = 0x0101010101010101, 0x8080808080808080, 0x5c5c5c5c5c5c5c5c
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		x := w ^ backslashes
		if (w|(x-lows)&^x)&highs != 0 {
			break
		}
	}
	for _, c := range b[i:] {
		if c == '\\' {
			return nil, false
		}
		if c >= utf8.RuneSelf {
			return b, bytes.IndexByte(b[i:], '\\') < 0 && utf8.Valid(b)
		}
	}
	return b, true
}

// str decodes a string field, shared through st.
func (d *metaDecoder) str(dec *jsontext.Decoder, dst *string, st *site) error {
	if dec.PeekKind() != '"' {
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*dst = d.in.bytes(unquote(raw), st)
	return nil
}

// int64 decodes an integer field.
func (d *metaDecoder) int64(dec *jsontext.Decoder, dst *int64) error {
	if dec.PeekKind() != '0' {
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	// ParseInt's errors copy the string they quote.
	n, err := strconv.ParseInt(unsafe.String(&raw[0], len(raw)), 10, 64)
	if err != nil { // a fraction, an exponent, out of range: the default's error
		return json.Unmarshal(raw, dst, d.opts)
	}
	*dst = n
	return nil
}

// time decodes a time as metav1.Time's UnmarshalJSON does (see
// unmarshalTime), parsing a string only when it differs from the last.
func (d *metaDecoder) time(dec *jsontext.Decoder, dst *metav1.Time, last *parsedTime) error {
	if dec.PeekKind() != '"' {
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	b, ok := plainString(raw)
	switch {
	case !ok:
		return json.Unmarshal(raw, dst, d.opts)
	case last.text != "" && string(b) == last.text:
		dst.Time = last.t
		return nil
	}
	text := string(b)
	t, err := time.Parse(time.RFC3339, text)
	if err != nil {
		return json.Unmarshal(raw, dst, d.opts) // the method's error
	}
	dst.Time = t.Local()
	*last = parsedTime{text, dst.Time}
	return nil
}

// unmarshalStringMap decodes a map of strings outside ObjectMeta (a
// ConfigMap's data, a node selector), sharing its keys and values. null,
// and anything but an object, go to the default decoding.
func (d *metaDecoder) unmarshalStringMap(dec *jsontext.Decoder, m *map[string]string) error {
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	return d.stringMap(dec, m, &d.sites.mapKey, &d.sites.mapValue)
}

// stringMap decodes a map of strings as encoding/json does, entry by
// entry instead of through reflection, sharing its keys and values: into
// the map already there if any, a later duplicate key winning, null
// values stored as "".
func (d *metaDecoder) stringMap(dec *jsontext.Decoder, dst *map[string]string, keys, values *site) error {
	if dec.PeekKind() != '{' {
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	if *dst == nil {
		*dst = make(map[string]string)
	}
	return readObject(dec, func(name []byte) error {
		key := d.in.bytes(name, keys)
		value := ""
		switch kind := dec.PeekKind(); kind {
		case '"':
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			value = d.in.bytes(unquote(raw), values)
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
			return fmt.Errorf("%v in a map of strings", kind)
		}
		(*dst)[key] = value
		return nil
	})
}

// managedFields decodes the managedFields array into a new slice, or
// skips it if the source drops them. null, anything but an array, and a
// second managedFields field (merged into the first) go to the default
// decoding.
func (d *metaDecoder) managedFields(dec *jsontext.Decoder, dst *[]metav1.ManagedFieldsEntry) error {
	if d.dropManaged {
		*dst = nil
		return dec.SkipValue()
	}
	if dec.PeekKind() != '[' || *dst != nil {
		return decodeDefault(d, dec, dst, d.managed)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	entries := []metav1.ManagedFieldsEntry{} // an empty array is an empty slice, not nil
	for dec.PeekKind() != ']' {
		entries = append(entries, metav1.ManagedFieldsEntry{})
		if err := d.managedFieldsEntry(dec, &entries[len(entries)-1]); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*dst = entries
	return nil
}

// managedFieldsEntry decodes one entry of managedFields into e, a zero
// entry, sharing its field set with equal ones.
func (d *metaDecoder) managedFieldsEntry(dec *jsontext.Decoder, e *metav1.ManagedFieldsEntry) error {
	if dec.PeekKind() != '{' {
		return json.UnmarshalDecode(dec, e, d.opts)
	}
	s := &d.sites
	return readObject(dec, func(name []byte) error {
		switch string(name) {
		case "manager":
			return d.str(dec, &e.Manager, &s.manager)
		case "operation":
			return d.str(dec, (*string)(&e.Operation), &s.operation)
		case "apiVersion":
			return d.str(dec, &e.APIVersion, &s.apiVersion)
		case "fieldsType":
			return d.str(dec, &e.FieldsType, &s.fieldsType)
		case "subresource":
			return d.str(dec, &e.Subresource, &s.subresource)
		case "time":
			return d.timePtr(dec, &e.Time, &s.managedTime)
		case "fieldsV1":
			return d.fieldsV1(dec, &e.FieldsV1)
		default:
			return dec.SkipValue()
		}
	})
}

// timePtr decodes a *metav1.Time: a string into the time it points to,
// a new one if nil.
func (d *metaDecoder) timePtr(dec *jsontext.Decoder, dst **metav1.Time, last *parsedTime) error {
	if dec.PeekKind() != '"' {
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	if *dst == nil {
		*dst = new(metav1.Time)
	}
	return d.time(dec, *dst, last)
}

// fieldsV1 decodes a field set, an object kept as its raw bytes by
// FieldsV1's UnmarshalJSON, sharing an equal one seen before whole. A
// second fieldsV1 field replaces the first, as the method's copy into
// the same value would.
func (d *metaDecoder) fieldsV1(dec *jsontext.Decoder, dst **metav1.FieldsV1) error {
	if dec.PeekKind() != '{' {
		*dst = nil // which may be shared: the method would write into it
		return json.UnmarshalDecode(dec, dst, d.opts)
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*dst = d.in.fieldsV1(raw, &d.sites.fieldSet)
	return nil
}
