package kube

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	corev1 "k8s.io/api/core/v1"
)

// TestJSONStringMapsAsEncodingJSON decodes maps of strings (labels, a
// ConfigMap's data) through the source's JSON codec and through
// encoding/json, as client-go decodes them: the objects must be equal,
// and one must fail where the other does.
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
			var want, got corev1.ConfigMap
			wantErr := json.Unmarshal([]byte(doc), &want)
			gotErr := jsonv2.Unmarshal([]byte(doc), &got, configMapType().json.opts)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(&got, &want) {
				t.Errorf("decoded\n%#v\nencoding/json decodes\n%#v", got, want)
			}
		})
	}
}
