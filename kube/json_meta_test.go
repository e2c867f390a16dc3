package kube

import (
	"bufio"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	corev1 "k8s.io/api/core/v1"
)

// metaDocs are ConfigMaps whose metadata exercise every path of the
// codec's ObjectMeta decoding, fast and default.
var metaDocs = map[string]string{
	"every field": `{"metadata":{"name":"n","generateName":"g-","namespace":"ns","selfLink":"/l","uid":"u-1",` +
		`"resourceVersion":"42","generation":7,"creationTimestamp":"2026-11-20T10:00:00Z",` +
		`"deletionTimestamp":"2026-11-21T10:00:00Z","deletionGracePeriodSeconds":30,` +
		`"labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"},` +
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u-2","controller":true}],` +
		`"finalizers":["f"],"managedFields":[` +
		`{"manager":"m","operation":"Update","apiVersion":"v1","time":"2026-11-20T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}}}},` +
		`{"manager":"kubelet","operation":"Apply","apiVersion":"v1","time":"2026-11-20T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}}},"subresource":"status"}]}}`,
	"empty":                `{"metadata":{}}`,
	"null":                 `{"metadata":null}`,
	"a string":             `{"metadata":"n"}`,
	"an array":             `{"metadata":[]}`,
	"twice, merged":        `{"metadata":{"name":"a","labels":{"x":"1"}},"metadata":{"namespace":"b","labels":{"y":"2"}}}`,
	"field twice":          `{"metadata":{"name":"a","name":"b"}}`,
	"unknown field":        `{"metadata":{"color":{"deep":[1,{"x":null}]},"name":"n"}}`,
	"other case":           `{"metadata":{"Name":"n","NAMESPACE":"ns"}}`,
	"escaped name":         `{"metadata":{"na\u006de":"n","\u006eamespace":"ns"}}`,
	"invalid UTF-8 name":   "{\"metadata\":{\"name\xff\":\"n\"}}",
	"escaped value":        `{"metadata":{"name":"a\"b\u00e9\n","uid":"\ud83d\ude00"}}`,
	"non-ASCII value":      `{"metadata":{"name":"café","namespace":"日本"}}`,
	"invalid UTF-8 value":  "{\"metadata\":{\"name\":\"n\xff\",\"labels\":{\"k\xfe\":\"v\xfd\"}}}",
	"invalid UTF-8 runs":   "{\"metadata\":{\"name\":\"a\xe6\x97b\xc0\xafc\xed\xa0\x80\",\"labels\":{\"k\xf0\x9f\":\"\xe6\x97\"}},\"data\":{\"\xc0\xaf\":\"\xf4\x90\x80\x80\"}}",
	"null strings":         `{"metadata":{"name":null,"uid":null,"resourceVersion":null}}`,
	"number name":          `{"metadata":{"name":5}}`,
	"object uid":           `{"metadata":{"uid":{}}}`,
	"generation negative":  `{"metadata":{"generation":-3}}`,
	"generation fraction":  `{"metadata":{"generation":1.5}}`,
	"generation exponent":  `{"metadata":{"generation":1e3}}`,
	"generation overflow":  `{"metadata":{"generation":9223372036854775808}}`,
	"generation string":    `{"metadata":{"generation":"5"}}`,
	"generation null":      `{"metadata":{"generation":null}}`,
	"time null":            `{"metadata":{"creationTimestamp":null}}`,
	"time invalid":         `{"metadata":{"creationTimestamp":"today"}}`,
	"time escaped":         `{"metadata":{"creationTimestamp":"2026-11-20T10:00:00\u005a"}}`,
	"times repeated":       `{"metadata":{"creationTimestamp":"2026-11-20T10:00:00+02:00","managedFields":[{"time":"2026-11-20T10:00:00Z"},{"time":"2026-11-20T10:00:00Z"},{"time":"2026-11-20T10:00:01Z"}]}}`,
	"time twice":           `{"metadata":{"managedFields":[{"time":"2026-11-20T10:00:00Z","time":"2026-11-20T11:00:00Z"}]}}`,
	"time then null":       `{"metadata":{"managedFields":[{"time":"2026-11-20T10:00:00Z","time":null}]}}`,
	"labels null":          `{"metadata":{"labels":null,"annotations":null}}`,
	"labels null value":    `{"metadata":{"labels":{"a":null}}}`,
	"labels number value":  `{"metadata":{"labels":{"a":1}}}`,
	"labels array":         `{"metadata":{"labels":["a"]}}`,
	"labels duplicate key": `{"metadata":{"labels":{"a":"1","a":"2"}}}`,
	"labels twice":         `{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"}}}`,
	"labels then null":     `{"metadata":{"labels":{"a":"1"},"labels":null}}`,
	"managed empty":        `{"metadata":{"managedFields":[]}}`,
	"managed null":         `{"metadata":{"managedFields":null}}`,
	"managed null entry":   `{"metadata":{"managedFields":[null,{"manager":"m"}]}}`,
	"managed string entry": `{"metadata":{"managedFields":["m"]}}`,
	"managed object":       `{"metadata":{"managedFields":{"manager":"m"}}}`,
	"managed twice":        `{"metadata":{"managedFields":[{"manager":"a"},{"manager":"b"}],"managedFields":[{"operation":"Apply"}]}}`,
	"managed unknown":      `{"metadata":{"managedFields":[{"manager":"m","extra":[1,2]}]}}`,
	"fieldsV1 null":        `{"metadata":{"managedFields":[{"fieldsV1":null}]}}`,
	"fieldsV1 string":      `{"metadata":{"managedFields":[{"fieldsV1":"f"}]}}`,
	"fieldsV1 array":       `{"metadata":{"managedFields":[{"fieldsV1":[1]}]}}`,
	"fieldsV1 twice":       `{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"fieldsV1":{"f:b":{}}}]}}`,
	"fieldsV1 then string": `{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"fieldsV1":"x"}]}}`,
	"fieldsV1 spaced":      `{"metadata":{"managedFields":[{"fieldsV1": { "f:a" : { } } }]}}`,
	"owner null":           `{"metadata":{"ownerReferences":null,"finalizers":null,"deletionTimestamp":null}}`,
	"truncated":            `{"metadata":{"name":"n",`,
	"truncated in managed": `{"metadata":{"managedFields":[{"manager":"m"`,
	"missing value":        `{"metadata":{"name"}}`,
	"trailing comma":       `{"metadata":{"name":"n",}}`,
}

// TestJSONObjectMetaAsClientGo decodes ObjectMeta through every path of
// the codec's decoder, as client-go does.
func TestJSONObjectMetaAsClientGo(t *testing.T) {
	for name, doc := range metaDocs {
		t.Run(name, func(t *testing.T) { requireAsClientGo(t, doc) })
	}
}

// TestJSONObjectMetaShared decodes a list of ConfigMaps and requires the
// strings and field sets they repeat, in their metadata and in their
// data's keys, to share one copy.
func TestJSONObjectMetaShared(t *testing.T) {
	item := func(name string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"team-a","labels":{"app":"web"},"finalizers":["example.com/f"],` +
			`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c6f5","uid":"0c1d"}],` +
			`"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-20T10:00:00Z",` +
			`"fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}}}}]},"data":{"config.yaml":"` + name + `"}}`
	}
	list := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[` + item("a") + `,` + item("b") + `,` + item("c") + `]}`
	items, _, err := configMapType().jsonList(bufio.NewReader(strings.NewReader(list)))
	if err != nil || len(items) != 3 {
		t.Fatalf("%d items, %v", len(items), err)
	}
	first, last := items[0], items[2]
	same := func(what, a, b string) {
		t.Helper()
		if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s: %q and %q do not share their bytes", what, a, b)
		}
	}
	same("namespace", first.Namespace, last.Namespace)
	same("manager", first.ManagedFields[0].Manager, last.ManagedFields[0].Manager)
	same("operation", string(first.ManagedFields[0].Operation), string(last.ManagedFields[0].Operation))
	same("label value", first.Labels["app"], last.Labels["app"])
	same("finalizer", first.Finalizers[0], last.Finalizers[0])
	same("owner's kind", first.OwnerReferences[0].Kind, last.OwnerReferences[0].Kind)
	same("owner's name", first.OwnerReferences[0].Name, last.OwnerReferences[0].Name)
	for k := range first.Labels {
		for k2 := range last.Labels {
			same("label key", k, k2)
		}
	}
	for k := range first.Data {
		for k2 := range last.Data {
			same("data key", k, k2)
		}
	}
	if first.ManagedFields[0].FieldsV1 != last.ManagedFields[0].FieldsV1 {
		t.Error("equal field sets are not shared")
	}
	if !first.ManagedFields[0].Time.Equal(last.ManagedFields[0].Time) {
		t.Errorf("times %v and %v", first.ManagedFields[0].Time, last.ManagedFields[0].Time)
	}
}

// TestJSONObjectMetaDropsManagedFields requires a source that drops
// managedFields to skip them, however they are written.
func TestJSONObjectMetaDropsManagedFields(t *testing.T) {
	o := newObjectType[*corev1.ConfigMap](configMapType().elem, configMapType().gvk, true)
	for _, doc := range []string{
		`{"metadata":{"name":"n","managedFields":[{"manager":"m","fieldsV1":{"f:a":{}}}]}}`,
		`{"metadata":{"managedFields":{"not":"an array"},"name":"n"}}`,
		`{"metadata":{"managedFields":null,"name":"n"}}`,
	} {
		var cm corev1.ConfigMap
		if err := jsonv2.Unmarshal([]byte(doc), &cm, o.json.opts); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if cm.Name != "n" || cm.ManagedFields != nil {
			t.Errorf("%s: name %q, managedFields %v", doc, cm.Name, cm.ManagedFields)
		}
	}
}

// FuzzJSONObjectMeta holds the codec's decoding of any document to
// client-go's.
func FuzzJSONObjectMeta(f *testing.F) {
	for _, doc := range metaDocs {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if err := decodesAsClientGo(doc); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
	})
}

// FuzzPlainString holds plainString to its definition: no backslash, and
// valid UTF-8.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefg\\", "abcdefgh\\", `\\abcdefghijklmnop`,
		"caf\u00e9 au lait", "0123456\xff89", "01234567\xc3", "日本語のテキストです", "01234567890123456789\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := plainString([]byte(`"` + s + `"`))
		want := !strings.Contains(s, "\\") && utf8.ValidString(s)
		if ok != want || (ok && string(b) != s) {
			t.Errorf("plainString(%q) = %q, %v; want %v", s, b, ok, want)
		}
	})
}
