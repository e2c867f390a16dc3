package kube

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// jsonCodec decodes JSON as client-go does (sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, itself encoding/json with exact
// field names): encoding/json's semantics (the types' own UnmarshalJSON
// methods, unknown fields ignored, duplicate names merged as encoding/json
// merges them, invalid UTF-8 replaced), with field names matched exactly.
// Unlike client-go it reads each value once, straight from the stream,
// and objects through their type's compiled decoder (see compileJSON).
type jsonCodec struct {
	opts   json.Options
	meta   *metaDecoder
	object jsonValue
}

// newJSONCodec returns the codec of a source of objects of type elem
// whose objects share their strings through in; with dropManaged, it
// skips their managedFields.
func newJSONCodec(elem reflect.Type, in *interner, dropManaged bool) jsonCodec {
	meta := newMetaDecoder(in, dropManaged)
	unmarshalers := json.JoinUnmarshalers(json.UnmarshalFromFunc(meta.unmarshal),
		json.UnmarshalFromFunc(unmarshalTime), json.UnmarshalFromFunc(meta.unmarshalStringMap))
	meta.opts = json.JoinOptions(jsonv1.DefaultOptionsV1(), json.MatchCaseInsensitiveNames(false),
		json.WithUnmarshalers(unmarshalers))
	return jsonCodec{opts: meta.opts, meta: meta, object: compileJSON(elem)}
}

// decodeJSON decodes the next value of dec, an object of the source's
// kind, and clears its type as client-go's typed clients do.
func (o *objectType[T]) decodeJSON(dec *jsontext.Decoder) (T, error) {
	var zero T
	obj, err := o.decodeJSONObject(dec)
	if err != nil {
		return zero, jsonError(err)
	}
	kind := obj.GetObjectKind()
	gvk := kind.GroupVersionKind()
	if err := o.checkKind(gvk.GroupVersion().String(), gvk.Kind, o.gvk.Kind); err != nil {
		return zero, err
	}
	kind.SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, nil
}

// decodeJSONObject decodes the next value of dec into a new object and
// finishes it, holding the interner, which the codec's decoders use as
// they read.
func (o *objectType[T]) decodeJSONObject(dec *jsontext.Decoder) (T, error) {
	obj := o.new()
	o.strings.mu.Lock()
	defer o.strings.mu.Unlock()
	if err := o.json.object(o.json.meta, dec, reflect.ValueOf(obj).UnsafePointer()); err != nil {
		return obj, err
	}
	o.finish(obj, true)
	return obj, nil
}

// jsonError wraps a decoding error, keeping the reader's end of stream
// and failures visible to errors.Is.
func jsonError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	var se *jsontext.SyntacticError
	var ue *json.SemanticError
	var se1 *jsonv1.SyntaxError
	var ue1 *jsonv1.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &ue) || errors.As(err, &se1) || errors.As(err, &ue1) {
		return fmt.Errorf("%w: %v", errMalformed, err)
	}
	return err
}

// jsonList decodes a list response as it arrives: each item into its own
// allocation, holding no more of the response than the decoder's buffer.
// A Status in place of the list is returned as its error.
func (o *objectType[T]) jsonList(r *bufio.Reader) ([]T, metav1.ListMeta, error) {
	var status metav1.Status
	meta := &status.ListMeta // a list's metadata and a Status's are both a ListMeta
	dec := jsontext.NewDecoder(r, o.json.opts)
	if err := readDelim(dec, '{'); err != nil {
		return nil, *meta, err
	}
	var items []T
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, *meta, jsonError(err)
		}
		var field any
		switch name.String() {
		case "apiVersion":
			field = &status.APIVersion
		case "kind":
			field = &status.Kind
		case "metadata":
			field = meta
		case "items":
			items, err = o.jsonItems(dec)
		case "status":
			field = &status.Status
		case "message":
			field = &status.Message
		case "reason":
			field = &status.Reason
		case "details":
			field = &status.Details
		case "code":
			field = &status.Code
		default:
			err = dec.SkipValue()
		}
		if field != nil {
			err = json.UnmarshalDecode(dec, field, o.json.opts)
		}
		if err != nil {
			return nil, *meta, jsonError(err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, *meta, jsonError(err)
	}
	if status.Kind == "Status" {
		return nil, *meta, statusError(&status)
	}
	if err := o.checkKind(status.APIVersion, status.Kind, o.listKind); err != nil {
		return nil, *meta, err
	}
	return items, *meta, nil
}

// jsonItems decodes a list's items.
func (o *objectType[T]) jsonItems(dec *jsontext.Decoder) ([]T, error) {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		return nil, err
	}
	if err := readDelim(dec, '['); err != nil {
		return nil, err
	}
	var items []T
	for dec.PeekKind() != ']' {
		obj, err := o.decodeJSONObject(dec)
		if err != nil {
			return nil, err
		}
		items = append(items, obj)
	}
	_, err := dec.ReadToken()
	return items, err
}

// readDelim reads the delimiter want.
func readDelim(dec *jsontext.Decoder, want jsontext.Kind) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return jsonError(err)
	}
	if tok.Kind() != want {
		return fmt.Errorf("%w: %v instead of %v", errMalformed, tok.Kind(), want)
	}
	return nil
}

// jsonStream reads the events of a JSON watch stream: a sequence of
// {"type": ..., "object": ...} values.
type jsonStream[T Object] struct {
	o   *objectType[T]
	src *eofReader
	dec *jsontext.Decoder
}

func newJSONStream[T Object](o *objectType[T], r io.Reader) *jsonStream[T] {
	src := &eofReader{r: r}
	return &jsonStream[T]{o: o, src: src, dec: jsontext.NewDecoder(src, o.json.opts)}
}

// eofReader records whether its reader has reached the end: the decoder
// reports a stream cut inside a value as a syntax error.
type eofReader struct {
	r   io.Reader
	eof bool
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF {
		r.eof = true
	}
	return n, err
}

// next reads and decodes the next event. It returns io.EOF at the end of
// the stream, io.ErrUnexpectedEOF if it ends inside an event, and the
// reader's error if it fails.
func (s *jsonStream[T]) next() (decodedEvent[T], error) {
	ev, err := s.decodeNext()
	if err != nil && s.src.eof && !errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return ev, err
}

func (s *jsonStream[T]) decodeNext() (decodedEvent[T], error) {
	var ev decodedEvent[T]
	tok, err := s.dec.ReadToken()
	if err != nil {
		return ev, jsonError(err)
	}
	if tok.Kind() != '{' {
		return ev, fmt.Errorf("%w: a watch event that is not an object", errMalformed)
	}
	var object jsontext.Value // the object, if it came before the type
	decoded := false
	for s.dec.PeekKind() != '}' {
		name, err := s.dec.ReadToken()
		if err != nil {
			return ev, jsonError(err)
		}
		switch name.String() {
		case "type":
			var t string
			if err := json.UnmarshalDecode(s.dec, &t, s.o.json.opts); err != nil {
				return ev, jsonError(err)
			}
			ev.Type = watch.EventType(t)
		case "object":
			if ev.Type == "" {
				v, err := s.dec.ReadValue()
				if err != nil {
					return ev, jsonError(err)
				}
				object = bytes.Clone(v)
				continue
			}
			if err := s.decodeObject(&ev, s.dec); err != nil {
				return ev, err
			}
			decoded = true
		default:
			if err := s.dec.SkipValue(); err != nil {
				return ev, jsonError(err)
			}
		}
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return ev, jsonError(err)
	}
	if !decoded {
		if object == nil {
			return ev, fmt.Errorf("%w: a watch event without an object", errMalformed)
		}
		if err := s.decodeObject(&ev, jsontext.NewDecoder(bytes.NewBuffer(object), s.o.json.opts)); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// decodeObject decodes the object of ev, whose type is known, from dec.
func (s *jsonStream[T]) decodeObject(ev *decodedEvent[T], dec *jsontext.Decoder) error {
	if ev.Type == watch.Error {
		ev.Status = &metav1.Status{}
		return jsonError(json.UnmarshalDecode(dec, ev.Status, s.o.json.opts))
	}
	obj, err := s.o.decodeJSON(dec)
	ev.Object = obj
	return err
}
