package kube

import (
	"fmt"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// The JSON codec decodes objects from the decoder's tokens instead of
// through reflection and the types' methods (json_compile.go,
// json_compile_types.go, json_meta.go, json_time.go); these tests hold it
// to client-go's results.

// requireAsClientGo decodes doc into a ConfigMap through the source's
// JSON codec, compiled and default, and as client-go's decoding does
// (sigs.k8s.io/json: encoding/json with exact field names, calling the
// types' own methods): the objects must be equal, and one decoding must
// fail where the other does.
func requireAsClientGo(t *testing.T, doc string) {
	t.Helper()
	if err := decodesAsClientGo(doc); err != nil {
		t.Error(err)
	}
}

// decodesAsClientGo reports how the codec's decodings of doc, through
// the compiled decoder and the default decoding its fallbacks use, differ
// from client-go's, if they do.
func decodesAsClientGo(doc string) error {
	if err := newJSONType(reflect.TypeFor[corev1.ConfigMap]()).differs([]byte(doc)); err != nil {
		return fmt.Errorf("compiled: %w", err)
	}
	var want, got corev1.ConfigMap
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts([]byte(doc), &want)
	gotErr := jsonv2.Unmarshal([]byte(doc), &got, configMapType().json.opts)
	if (gotErr == nil) != (wantErr == nil) {
		return fmt.Errorf("default: error %v, client-go's %v", gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(&got, &want) {
		return fmt.Errorf("default: decoded\n%#v\nclient-go decodes\n%#v", got, want)
	}
	return nil
}

// TestJSONTimeAsItsMethod decodes times, as a value (creationTimestamp)
// and behind a pointer (a managedFields entry's time), as metav1.Time's
// UnmarshalJSON does.
func TestJSONTimeAsItsMethod(t *testing.T) {
	for _, value := range []string{
		`"2026-11-20T10:00:00Z"`,
		`"2026-11-20T10:00:00+02:00"`,
		`"2026-11-20T10:00:00.123456789-07:30"`,
		`"2026-11-20T10:00:00\u005a"`,
		`null`,
		`""`,
		`"yesterday"`,
		`"2026-11-20 10:00:00Z"`,
		`12`,
		`{}`,
		`["2026-11-20T10:00:00Z"]`,
	} {
		t.Run(value, func(t *testing.T) {
			requireAsClientGo(t, fmt.Sprintf(`{"metadata":{"creationTimestamp":%s,"managedFields":[{"manager":"m","time":%s}]}}`, value, value))
		})
	}
}

// TestJSONStringMapsAsEncodingJSON decodes maps of strings (labels, a
// ConfigMap's data) as encoding/json does.
func TestJSONStringMapsAsEncodingJSON(t *testing.T) {
	for name, doc := range map[string]string{
		"entries":            `{"metadata":{"labels":{"app":"web","tier":"frontend"}},"data":{"a":"1","b":""}}`,
		"empty":              `{"metadata":{"labels":{}},"data":{}}`,
		"null map":           `{"metadata":{"labels":null},"data":null}`,
		"null value":         `{"data":{"a":null,"b":"2"}}`,
		"duplicate key":      `{"data":{"a":"1","a":"2"}}`,
		"field twice":        `{"data":{"a":"1","b":"2"},"data":{"b":"3","c":"4"}}`,
		"escapes":            `{"data":{"\u0061\n":"\"quoted\"\t\u00e9\ud83d\ude00"}}`,
		"invalid UTF-8":      "{\"data\":{\"k\xff\":\"v\xfe\"}}",
		"number value":       `{"data":{"a":1}}`,
		"bool value":         `{"data":{"a":true}}`,
		"object value":       `{"data":{"a":{"b":"c"}}}`,
		"array value":        `{"data":{"a":["b"]}}`,
		"not an object":      `{"data":["a","b"]}`,
		"string, not a map":  `{"data":"a"}`,
		"truncated":          `{"data":{"a":"1",`,
		"missing value":      `{"data":{"a"}}`,
		"number key":         `{"data":{1:"a"}}`,
		"trailing comma":     `{"data":{"a":"1",}}`,
		"map then more":      `{"data":{"a":"1"},"immutable":true,"metadata":{"name":"n","annotations":{"x":"y"}}}`,
		"value after error":  `{"data":{"a":2,"b":"3"},"metadata":{"name":"n"}}`,
		"nested null entry":  `{"metadata":{"annotations":{"a":null}}}`,
		"binaryData nearby":  `{"binaryData":{"a":"YWJj"},"data":{"a":"abc"}}`,
		"deep value invalid": `{"data":{"a":{"b":[1,2,{"c":null}]}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			requireAsClientGo(t, doc)
		})
	}
}
