package kube

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// jsonType is an object type and the JSON codec of a source of it.
type jsonType struct {
	typ   reflect.Type
	in    *interner
	codec jsonCodec
}

func newJSONType(typ reflect.Type) jsonType {
	in := newInterner(typ)
	return jsonType{typ, in, newJSONCodec(typ, in, false)}
}

// jsonTypes returns the struct types of every kind client-go knows, with
// their codecs, sorted by name.
func jsonTypes() []jsonType {
	var types []jsonType
	for _, typ := range apiTypes() {
		types = append(types, newJSONType(typ))
	}
	return types
}

// decode decodes doc as the codec decodes a list's item, and requires
// nothing after it.
func (c jsonType) decode(doc []byte) (any, error) {
	v := reflect.New(c.typ)
	dec := jsontext.NewDecoder(bytes.NewReader(doc), c.codec.opts)
	c.in.mu.Lock()
	err := c.codec.object(c.codec.meta, dec, v.UnsafePointer())
	c.in.mu.Unlock()
	if err == nil {
		switch _, err = dec.ReadToken(); {
		case err == io.EOF:
			err = nil
		case err == nil:
			err = errors.New("a value after the object")
		}
	}
	return v.Interface(), err
}

// differs reports how the codec's decoding of doc differs from
// client-go's (sigs.k8s.io/json: encoding/json with exact field names,
// calling the types' own methods), if it does: the values must be
// equal, and one decoding must fail where the other does.
func (c jsonType) differs(doc []byte) error {
	want := reflect.New(c.typ).Interface()
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts(doc, want)
	got, gotErr := c.decode(doc)
	if (gotErr == nil) != (wantErr == nil) {
		return fmt.Errorf("%v: error %v, client-go's %v", c.typ, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%v: decoded\n%#v\nclient-go decodes\n%#v", c.typ, got, want)
	}
	return nil
}

func (c jsonType) check(t testing.TB, doc []byte) {
	t.Helper()
	if err := c.differs(doc); err != nil {
		t.Fatalf("%s\n%v", doc, err)
	}
}

// replacements are the values mutateValue puts in place of one: every
// kind, numbers a field of each type refuses, strings a quantity or an
// int-or-string refuses.
var replacements = []string{
	`null`, `true`, `false`, `0`, `-0`, `-1`, `1.5`, `1e3`, `2147483648`, `-9223372036854775809`,
	`18446744073709551616`, `""`, `"x"`, `"250m"`, `"1.5Gi"`, `" 1 "`, `"\u0041\n"`, `"2026-11-20T10:00:00Z"`,
	`{}`, `{"a":"b"}`, `[]`, `[null]`, `[{}]`, `["a"]`, `[1,2]`,
}

// mutateValue returns doc with one of its values, picked at random,
// replaced by one of replacements.
func mutateValue(r *rand.Rand, doc []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return doc
	}
	count := 0
	var walk func(v any, replace int) any
	walk = func(v any, replace int) any {
		if count == replace {
			count++
			return json.RawMessage(replacements[r.Intn(len(replacements))])
		}
		count++
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e, replace)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e, replace)
			}
		}
		return v
	}
	walk(v, -1)
	n := count
	count = 0
	v = walk(v, 1+r.Intn(max(n-1, 1)))
	out, err := json.Marshal(v)
	if err != nil {
		return doc
	}
	return out
}

// The compiled JSON decoder decodes what client-go decodes, to equal
// values, and refuses what it refuses: over randomly filled objects of
// every kind client-go knows, values of them replaced by values of every
// kind, and bytes of them edited.
func TestJSONDecoderMatchesClientGo(t *testing.T) {
	types := jsonTypes()
	if len(types) < 100 {
		t.Fatalf("%d types, want every kind client-go knows", len(types))
	}
	const objects, mutations = 4, 6
	for i, c := range types {
		t.Run(c.typ.String(), func(t *testing.T) {
			t.Parallel()
			f := newFiller(int64(i))
			r := rand.New(rand.NewSource(int64(i)))
			for range objects {
				v := reflect.New(c.typ)
				f.Fill(v.Interface())
				doc, err := json.Marshal(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				c.check(t, doc)
				for range mutations {
					c.check(t, mutateValue(r, doc))
					c.check(t, mutate(r, doc))
				}
			}
		})
	}
}

// Documents encoding/json decodes in ways the compiled decoder must keep.
func TestJSONDecoderEdgeCases(t *testing.T) {
	pod := newJSONType(reflect.TypeFor[corev1.Pod]())
	for name, doc := range map[string]string{
		"empty":                       `{}`,
		"null":                        `null`,
		"not an object":               `[]`,
		"unknown fields":              `{"x":1,"spec":{"y":[1,{"z":null}]},"status":{"phase":"Running","w":"v"}}`,
		"names differ in case":        `{"Spec":{"nodeName":"a"},"spec":{"NodeName":"b"}}`,
		"escaped name":                `{"sp\u0065c":{"node\u004eame":"n"}}`,
		"invalid UTF-8":               "{\"spec\":{\"nodeName\":\"n\xff\",\"node\xffName\":\"x\"}}",
		"null string":                 `{"spec":{"nodeName":null}}`,
		"string twice":                `{"spec":{"nodeName":"a","nodeName":"b"}}`,
		"number for string":           `{"spec":{"nodeName":1}}`,
		"null bool":                   `{"spec":{"hostNetwork":null}}`,
		"string for bool":             `{"spec":{"hostNetwork":"true"}}`,
		"int32 fraction":              `{"spec":{"priority":1.0}}`,
		"int32 exponent":              `{"spec":{"priority":1e2}}`,
		"int32 negative zero":         `{"spec":{"priority":-0}}`,
		"int32 out of range":          `{"spec":{"priority":2147483648}}`,
		"int32 lowest":                `{"spec":{"priority":-2147483648}}`,
		"int64 out of range":          `{"spec":{"activeDeadlineSeconds":9223372036854775808}}`,
		"string for int":              `{"spec":{"priority":"1"}}`,
		"null pointer":                `{"spec":{"priority":1,"priority":null}}`,
		"pointer twice":               `{"spec":{"securityContext":{"runAsUser":1},"securityContext":{"runAsGroup":2}}}`,
		"pointer then wrong kind":     `{"spec":{"securityContext":{"runAsUser":1},"securityContext":3}}`,
		"struct null":                 `{"spec":{"nodeName":"n"},"spec":null}`,
		"struct twice":                `{"spec":{"nodeName":"n"},"spec":{"hostname":"h"}}`,
		"struct wrong kind":           `{"spec":"n"}`,
		"null slice":                  `{"spec":{"containers":[{"name":"a"}],"containers":null}}`,
		"empty slice":                 `{"spec":{"containers":[]}}`,
		"slice twice":                 `{"spec":{"containers":[{"name":"a","image":"i"},{"name":"b"}],"containers":[{"image":"j"}]}}`,
		"slice of wrong kind":         `{"spec":{"containers":{"name":"a"}}}`,
		"slice element null":          `{"spec":{"containers":[null,{"name":"b"}]}}`,
		"slice element wrong kind":    `{"spec":{"containers":["a"]}}`,
		"many elements":               `{"spec":{"tolerations":[{"key":"a"},{"key":"b"},{"key":"c"},{"key":"d"},{"key":"e"},{"key":"f"},{"key":"g"},{"key":"h"},{"key":"i"}]}}`,
		"string slice":                `{"metadata":{"finalizers":["a",null,"b"]}}`,
		"bytes":                       `{"spec":{"containers":[{"name":"a"}]},"status":{"message":"m"}}`,
		"embedded struct":             `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"path":"/p","port":"http"},"exec":{"command":["a"]},"periodSeconds":3}}]}}`,
		"int-or-string number":        `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":8080}}}]}}`,
		"int-or-string twice":         `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":8080,"port":"http"}}}]}}`,
		"int-or-string null":          `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":null}}}]}}`,
		"int-or-string fraction":      `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":1.5}}}]}}`,
		"int-or-string out of range":  `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":2147483648}}}]}}`,
		"int-or-string escaped":       `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":"h\u0074tp\n"}}}]}}`,
		"int-or-string wrong kind":    `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":true}}}]}}`,
		"quantities":                  `{"spec":{"containers":[{"resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"memory":"512Mi","cpu":1}}}]}}`,
		"quantity forms":              `{"spec":{"containers":[{"resources":{"requests":{"a":"1.5","b":"0.1","c":" 1 ","d":"1e3","e":"1E3","f":"\u0031"}}}]}}`,
		"quantity decimal":            `{"spec":{"containers":[{"resources":{"requests":{"a":"0.000000000001","b":"12345678901234567890"}}}]}}`,
		"quantity invalid":            `{"spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}`,
		"quantity null":               `{"spec":{"containers":[{"resources":{"requests":{"cpu":null}}}]}}`,
		"quantity wrong kind":         `{"spec":{"containers":[{"resources":{"requests":{"cpu":{}}}}]}}`,
		"quantity key twice":          `{"spec":{"containers":[{"resources":{"requests":{"cpu":"1","cpu":"2"}}}]}}`,
		"resources twice":             `{"spec":{"containers":[{"resources":{"requests":{"cpu":"1"},"requests":{"memory":"2"}}}]}}`,
		"resources null":              `{"spec":{"containers":[{"resources":{"requests":{"cpu":"1"},"requests":null}}]}}`,
		"resources wrong kind":        `{"spec":{"containers":[{"resources":{"requests":["1"]}}]}}`,
		"overhead":                    `{"spec":{"overhead":{"cpu":"100m"}}}`,
		"times":                       `{"status":{"startTime":"2026-11-20T10:00:00Z","conditions":[{"type":"Ready","lastTransitionTime":"2026-11-20T10:00:01+02:00"}]}}`,
		"time null and wrong":         `{"status":{"startTime":null,"conditions":[{"lastTransitionTime":null},{"lastTransitionTime":"never"}]}}`,
		"node selector":               `{"spec":{"nodeSelector":{"a":"b","a":"c","d":null}}}`,
		"owner references":            `{"metadata":{"ownerReferences":[{"kind":"ReplicaSet","controller":true,"blockOwnerDeletion":null}]}}`,
		"owner references twice":      `{"metadata":{"ownerReferences":[{"kind":"A"}],"ownerReferences":[{"name":"b"}]}}`,
		"metadata wrong kind":         `{"metadata":[]}`,
		"kind and apiVersion":         `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`,
		"truncated":                   `{"spec":{"containers":[{"name":"a"`,
		"syntax error after an error": `{"spec":{"priority":"x"},"status":{"phase":}}`,
		"trailing comma":              `{"spec":{"containers":[{"name":"a"},]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			pod.check(t, []byte(doc))
		})
	}
}

// FuzzJSONDecoder checks the compiled decoder against client-go's
// decoding on arbitrary documents: it never panics, and it succeeds with
// an equal value exactly when client-go does.
func FuzzJSONDecoder(f *testing.F) {
	types := jsonTypes()
	fill := newFiller(1)
	for i, c := range types {
		if kind := c.typ.Name(); kind == "Pod" || kind == "ConfigMap" || kind == "Service" || kind == "Node" || kind == "Deployment" || i%16 == 0 {
			v := reflect.New(c.typ)
			fill.Fill(v.Interface())
			doc, err := json.Marshal(v.Interface())
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint16(i), string(doc))
		}
	}
	f.Fuzz(func(t *testing.T, n uint16, doc string) {
		c := types[int(n)%len(types)]
		c.check(t, []byte(doc))
		c.checkStream(t, []byte(doc), []byte(mutateValue(rand.New(rand.NewSource(int64(len(doc)))), []byte(doc))))
	})
}

// checkStream decodes first and then second, documents client-go decodes,
// from one decoder that reads a few bytes at a time, as a list's items
// are read, so that the decoder's buffer is reused between them; both
// must equal client-go's decodings once both are decoded.
func (c jsonType) checkStream(t testing.TB, first, second []byte) {
	t.Helper()
	docs := [][]byte{first, second}
	want := make([]any, len(docs))
	for i, doc := range docs {
		want[i] = reflect.New(c.typ).Interface()
		if kjson.UnmarshalCaseSensitivePreserveInts(doc, want[i]) != nil {
			return
		}
	}
	stream := append(append(slices.Clone(first), ' '), second...)
	dec := jsontext.NewDecoder(&chunkReader{b: stream, n: 7}, c.codec.opts)
	got := make([]any, len(docs))
	for i := range docs {
		v := reflect.New(c.typ)
		c.in.mu.Lock()
		err := c.codec.object(c.codec.meta, dec, v.UnsafePointer())
		c.in.mu.Unlock()
		if err != nil {
			t.Fatalf("%v: document %d of a stream: %v\n%s", c.typ, i, err, docs[i])
		}
		got[i] = v.Interface()
	}
	overwrite(stream)
	for i := range docs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%v: document %d of a stream decoded\n%#v\nclient-go decodes\n%#v", c.typ, i, got[i], want[i])
		}
	}
}

// A chunkReader reads b at most n bytes at a time.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[n:]
	return n, nil
}

// Pods the JSON codec decodes share their repeated strings, in their spec
// and status as in their metadata, and keep nothing of the buffer they
// were read from.
func TestJSONDecoderShares(t *testing.T) {
	o := podType(false)
	list := &corev1.PodList{Items: []corev1.Pod{*serverPod(1), *serverPod(2)}}
	body, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	body = append([]byte(`{"kind":"PodList","apiVersion":"v1",`), body[1:]...)
	pods, _, err := o.jsonList(bufio.NewReaderSize(bytes.NewReader(body), 64))
	if err != nil {
		t.Fatal(err)
	}
	var want corev1.PodList
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &want); err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = 'x'
	}
	for i, p := range pods {
		if !reflect.DeepEqual(p, &want.Items[i]) {
			t.Fatalf("decoded\n%#v\nclient-go decodes\n%#v", p, &want.Items[i])
		}
	}
	a, b := pods[0], pods[1]
	same := func(what, x, y string) {
		t.Helper()
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q do not share their bytes", what, x, y)
		}
	}
	same("image", a.Spec.Containers[0].Image, b.Spec.Containers[0].Image)
	same("variable", a.Spec.Containers[0].Env[0].Value, b.Spec.Containers[0].Env[0].Value)
	same("probe port", a.Spec.Containers[0].ReadinessProbe.HTTPGet.Port.StrVal, b.Spec.Containers[0].ReadinessProbe.HTTPGet.Port.StrVal)
	same("toleration", a.Spec.Tolerations[0].Key, b.Spec.Tolerations[0].Key)
	same("phase", string(a.Status.Phase), string(b.Status.Phase))
	for k := range a.Spec.Containers[0].Resources.Requests {
		for k2 := range b.Spec.Containers[0].Resources.Requests {
			if k == k2 {
				same("resource name", string(k), string(k2))
			}
		}
	}
}

// A custom resource's types, as a controller author writes them, with
// the forms the Kubernetes types do not have: recursion, other integer
// sizes, floats, maps of other values, arrays, embedded structs whose
// names conflict, a `string` option. (A type holding an interface is
// listed and watched through the client: see jsonDecodable.)
type (
	fooResource struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              fooSpec `json:"spec"`
	}
	fooSpec struct {
		Replicas *int32         `json:"replicas,omitempty"`
		Small    int8           `json:"small"`
		Port     uint16         `json:"port"`
		Weight   float64        `json:"weight"`
		Counts   map[string]int `json:"counts"`
		Pair     [2]string      `json:"pair"`
		Tree     *fooNode       `json:"tree"`
		Both     fooConflict    `json:"both"`
		Quoted   fooQuoted      `json:"quoted"`
		Skipped  string         `json:"-"`
		//lint:ignore SA5008 encoding/json names this field "-", which the test holds the compiler to
		Dash     string `json:"-,"`
		Untagged string
		Labels   map[string]string `json:"labels"`
		Data     []byte            `json:"data"`
		//lint:ignore U1000 encoding/json never sets an unexported field, which the test holds the compiler to
		private string
	}
	fooNode struct {
		Name     string    `json:"name"`
		Children []fooNode `json:"children"`
	}
	fooConflict struct {
		fooLeft
		fooRight
	}
	fooLeft   struct{ Name, Left string }
	fooRight  struct{ Name, Right string }
	fooQuoted struct {
		N int64 `json:"n,string"`
	}
)

// A custom resource decodes as client-go decodes it, through the forms
// the compiler reads itself and those it hands to the default decoding.
func TestJSONDecoderCustomResource(t *testing.T) {
	if !jsonDecodable(reflect.TypeFor[fooResource](), map[reflect.Type]bool{}) {
		t.Fatal("the direct path does not decode fooResource")
	}
	foo := newJSONType(reflect.TypeFor[fooResource]())
	for name, doc := range map[string]string{
		"every field": `{"kind":"Foo","apiVersion":"example.com/v1","metadata":{"name":"f","labels":{"a":"b"}},` +
			`"spec":{"replicas":3,"small":-8,"port":8080,"weight":0.5,"counts":{"a":1},` +
			`"pair":["a","b"],"tree":{"name":"root","children":[{"name":"a","children":[{"name":"a1"}]},{"name":"b"}]},` +
			`"both":{"Name":"n","Left":"l","Right":"r"},"quoted":{"n":"42"},"-":"dash","Untagged":"u","Skipped":"s",` +
			`"labels":{"k":"v"},"data":"YWJj","private":"p"}}`,
		"small out of range":  `{"spec":{"small":128}}`,
		"port negative":       `{"spec":{"port":-1}}`,
		"port out of range":   `{"spec":{"port":65536}}`,
		"weight as a string":  `{"spec":{"weight":"0.5"}}`,
		"quoted unquoted":     `{"spec":{"quoted":{"n":42}}}`,
		"tree twice":          `{"spec":{"tree":{"name":"a","children":[{"name":"b"}]},"tree":{"children":[{"name":"c"}]}}}`,
		"deep tree":           `{"spec":{"tree":{"children":[{"children":[{"children":[{"children":[{"name":"deep"}]}]}]}]}}}`,
		"children null":       `{"spec":{"tree":{"children":null}}}`,
		"array too long":      `{"spec":{"pair":["a","b","c"]}}`,
		"data not base64":     `{"spec":{"data":"!"}}`,
		"counts wrong values": `{"spec":{"counts":{"a":"1"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			foo.check(t, []byte(doc))
		})
	}
}
