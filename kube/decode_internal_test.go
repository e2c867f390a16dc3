package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/typedcache/typedcache/reflector"
)

// The differential test over real server responses is in
// integration/decode_test.go; these tests check the direct path's
// handling of responses no server sends.

func configMapType() *objectType[*corev1.ConfigMap] {
	return newObjectType[*corev1.ConfigMap](reflect.TypeFor[corev1.ConfigMap](), corev1.SchemeGroupVersion.WithKind("ConfigMap"), false)
}

func testConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: "7", Labels: map[string]string{"app": "web"}},
		Data:       map[string]string{"k": "v"},
	}
}

func encodeProtobuf(t *testing.T, obj runtime.Object, kind string) []byte {
	t.Helper()
	obj.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJSON(t *testing.T, obj runtime.Object, kind string) []byte {
	t.Helper()
	obj.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A listDecoder decodes a list response from a reader.
type listDecoder func(*bufio.Reader) ([]*corev1.ConfigMap, metav1.ListMeta, error)

// bytes decodes body, handing it to decode in pieces of the sizes
// chunk gives (the whole body with nil).
func (decode listDecoder) bytes(body []byte, chunk func(io.Reader) io.Reader) ([]*corev1.ConfigMap, metav1.ListMeta, error) {
	return decode(bufio.NewReaderSize(chunked(body, chunk), 16))
}

// chunked returns a reader of body in pieces of the sizes chunk gives
// (the whole body with nil).
func chunked(body []byte, chunk func(io.Reader) io.Reader) io.Reader {
	if chunk == nil {
		return bytes.NewReader(body)
	}
	return chunk(bytes.NewReader(body))
}

// TestDirectListDecodesBothEncodings decodes a list in each encoding,
// plain or compressed, as it arrives whole or a byte at a time, and every truncation and one-byte
// corruption of it without panicking.
func TestDirectListDecodesBothEncodings(t *testing.T) {
	o := configMapType()
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.ConfigMap{*testConfigMap("a"), *testConfigMap("b")}}
	for _, tc := range []struct {
		name   string
		body   []byte
		decode listDecoder
	}{
		{"protobuf", encodeProtobuf(t, list.DeepCopy(), "ConfigMapList"), o.protobufList},
		{"json", encodeJSON(t, list.DeepCopy(), "ConfigMapList"), o.jsonList},
		{"protobuf sniffed", encodeProtobuf(t, list.DeepCopy(), "ConfigMapList"), o.decodeList},
		{"json sniffed", encodeJSON(t, list.DeepCopy(), "ConfigMapList"), o.decodeList},
		{"protobuf compressed", gzipped(t, string(encodeProtobuf(t, list.DeepCopy(), "ConfigMapList"))), o.decodeList},
		{"json compressed", gzipped(t, string(encodeJSON(t, list.DeepCopy(), "ConfigMapList"))), o.decodeList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunk := range []func(io.Reader) io.Reader{nil, iotest.OneByteReader} {
				items, meta, err := tc.decode.bytes(tc.body, chunk)
				if err != nil {
					t.Fatal(err)
				}
				if meta.ResourceVersion != "9" || len(items) != 2 || !reflect.DeepEqual(*items[1], list.Items[1]) {
					t.Fatalf("decoded version %q and %d items (%+v), want version 9 and the list's 2 items", meta.ResourceVersion, len(items), items)
				}
			}
			for i := range tc.body {
				// A truncated response is an error, or holds the whole list
				// (protobuf's trailing fields are empty).
				if items, _, err := tc.decode.bytes(tc.body[:i], nil); err == nil && len(items) != 2 {
					t.Fatalf("the first %d of %d bytes decoded to %d items without an error", i, len(tc.body), len(items))
				}
				corrupt := bytes.Clone(tc.body)
				corrupt[i] ^= 0xff
				_, _, _ = tc.decode.bytes(corrupt, nil)
			}
		})
	}
}

// TestDirectListItemsOfEverySize decodes a protobuf list whose items are
// smaller than the reader's buffer, as large, and larger: an item that
// fits is decoded from the buffer itself, which the following reads
// overwrite, a larger one from a copy; every decoded item must keep its
// own contents.
func TestDirectListItemsOfEverySize(t *testing.T) {
	const size = 4096 // the reader's buffer
	o := configMapType()
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}}
	for n := range 40 {
		cm := testConfigMap(fmt.Sprint("cm-", n))
		cm.Data["v"] = strings.Repeat(string(rune('a'+n%26)), size-80+2*n)
		list.Items = append(list.Items, *cm, *testConfigMap(fmt.Sprint("small-", n)))
	}
	body := encodeProtobuf(t, list.DeepCopy(), "ConfigMapList")
	fits, larger := 0, 0
	for _, cm := range list.Items {
		if cm.Size() <= size {
			fits++
		} else {
			larger++
		}
	}
	if fits <= len(list.Items)/2 || larger == 0 {
		t.Fatalf("%d items fit the buffer and %d do not: the test lost its point", fits, larger)
	}
	for _, chunk := range []func(io.Reader) io.Reader{nil, iotest.HalfReader, iotest.OneByteReader} {
		items, _, err := o.protobufList(bufio.NewReaderSize(chunked(body, chunk), size))
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != len(list.Items) {
			t.Fatalf("decoded %d items, want %d", len(items), len(list.Items))
		}
		for i, cm := range items {
			if !reflect.DeepEqual(*cm, list.Items[i]) {
				t.Fatalf("item %d (%d bytes) decoded to %q/%q, want %q/%q", i, list.Items[i].Size(), cm.Name, abbreviated(cm.Data["v"]), list.Items[i].Name, abbreviated(list.Items[i].Data["v"]))
			}
		}
	}
}

// abbreviated returns s cut to 20 bytes, for failure messages.
func abbreviated(s string) string { return s[:min(len(s), 20)] }

// TestDirectListRejects checks the errors of list responses that are not
// lists of the source's objects.
func TestDirectListRejects(t *testing.T) {
	o := configMapType()
	secrets := &corev1.SecretList{}
	for _, tc := range []struct {
		name   string
		decode listDecoder
		body   []byte
		want   error
	}{
		{"protobuf without prefix", o.protobufList, []byte("not protobuf"), errMalformed},
		{"protobuf of another kind", o.protobufList, encodeProtobuf(t, secrets, "SecretList"), ErrUnexpectedObject},
		{"protobuf contents before type", o.protobufList, append(bytes.Clone(protobufPrefix), 0x12, 0), errMalformed},
		{"protobuf for a type without it", withoutProtobuf(o).decodeList, encodeProtobuf(t, &corev1.ConfigMapList{}, "ConfigMapList"), errMalformed},
		{"json of another kind", o.jsonList, encodeJSON(t, secrets, "SecretList"), ErrUnexpectedObject},
		{"json that is not an object", o.jsonList, []byte(`[1]`), errMalformed},
		{"json with an item that is not an object", o.jsonList, []byte(`{"apiVersion":"v1","kind":"ConfigMapList","items":[1]}`), errMalformed},
		{"neither", o.decodeList, []byte{0xd9, 0xd9, 0xf7}, errMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := tc.decode.bytes(tc.body, nil); !errors.Is(err, tc.want) {
				t.Errorf("decode error %v, want one wrapping %v", err, tc.want)
			}
		})
	}
	status := &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonGone, Message: "too old", Code: 410}
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"json status", encodeJSON(t, status.DeepCopy(), "Status")},
		{"protobuf status", encodeProtobuf(t, status.DeepCopy(), "Status")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := listDecoder(o.decodeList).bytes(tc.body, nil)
			var se interface{ Status() metav1.Status }
			if !errors.As(err, &se) || se.Status().Code != 410 || se.Status().Message != "too old" {
				t.Errorf("decode error %v, want the status error of a 410", err)
			}
		})
	}
}

// withoutProtobuf is o for a type without the generated protobuf methods.
func withoutProtobuf(o *objectType[*corev1.ConfigMap]) *objectType[*corev1.ConfigMap] {
	c := *o
	c.protobuf = false
	return &c
}

// protobufFrame encodes one watch event as the server frames it.
func protobufFrame(t *testing.T, typ string, obj runtime.Object, kind string) []byte {
	t.Helper()
	ev := metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: encodeProtobuf(t, obj, kind)}}
	b, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func jsonEvent(t *testing.T, typ string, obj runtime.Object, kind string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]json.RawMessage{"type": json.RawMessage(`"` + typ + `"`), "object": encodeJSON(t, obj, kind)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads w to its end, and returns the names of its objects and
// the error that ended it.
func readAll(w reflector.Watch[*corev1.ConfigMap]) ([]string, error) {
	defer w.Stop()
	var names []string
	for {
		ev, err := w.Next(context.Background())
		if err != nil {
			return names, err
		}
		names = append(names, fmt.Sprintf("%d %s", ev.Type, ev.Object.GetName()))
	}
}

// TestDirectWatch reads watch streams in both encodings: their events in
// order, io.EOF at their end (a truncated stream is a closed connection,
// as in client-go), and an error for an event the source cannot take.
func TestDirectWatch(t *testing.T) {
	o := configMapType()
	gone := &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonGone, Code: 410}
	pbA := protobufFrame(t, "ADDED", testConfigMap("a"), "ConfigMap")
	pb := bytes.Join([][]byte{pbA, protobufFrame(t, "MODIFIED", testConfigMap("b"), "ConfigMap")}, nil)
	js := bytes.Join([][]byte{jsonEvent(t, "ADDED", testConfigMap("a"), "ConfigMap"), jsonEvent(t, "MODIFIED", testConfigMap("b"), "ConfigMap")}, []byte("\n"))
	both := []string{fmt.Sprintf("%d a", reflector.Added), fmt.Sprintf("%d b", reflector.Updated)}
	for _, tc := range []struct {
		name  string
		body  []byte
		want  []string
		isEOF bool
		errIs error
	}{
		{name: "protobuf", body: pb, want: both, isEOF: true},
		{name: "json", body: js, want: both, isEOF: true},
		{name: "protobuf compressed", body: gzipped(t, string(pb)), want: both, isEOF: true},
		{name: "json compressed", body: gzipped(t, string(js)), want: both, isEOF: true},
		// A stream whose connection broke, in the gzip trailer: everything
		// before it was delivered.
		{name: "compressed without its trailer", body: gzippedHead(t, string(pb)), want: both, isEOF: true},
		{name: "compressed stream of garbage", body: gzipped(t, "garbage"), errIs: errMalformed},
		{name: "protobuf truncated", body: pb[:len(pb)-3], want: both[:1], isEOF: true},
		{name: "json truncated", body: js[:len(js)-3], want: both[:1], isEOF: true},
		{name: "protobuf error event", body: protobufFrame(t, "ERROR", gone, "Status")},
		{name: "json error event", body: jsonEvent(t, "ERROR", gone, "Status")},
		{name: "protobuf object of another kind", body: protobufFrame(t, "ADDED", &corev1.Secret{}, "Secret"), errIs: ErrUnexpectedObject},
		{name: "json object of another kind", body: jsonEvent(t, "ADDED", &corev1.Secret{}, "Secret"), errIs: ErrUnexpectedObject},
		{name: "protobuf frame too large", body: append(bytes.Clone(pbA), 1, 0, 0, 1), want: both[:1], errIs: errMalformed},
		{name: "neither encoding", body: []byte("garbage"), errIs: errMalformed},
		{name: "json event without object", body: []byte(`{"type":"ADDED"}`), errIs: errMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDirectWatch(context.Background(), o, io.NopCloser(bytes.NewReader(tc.body)), "configmaps")
			names, err := readAll(w)
			if !reflect.DeepEqual(names, tc.want) {
				t.Errorf("events %q, want %q", names, tc.want)
			}
			switch {
			case tc.isEOF && err != io.EOF:
				t.Errorf("ended with %v, want io.EOF", err)
			case !tc.isEOF && (err == nil || err == io.EOF):
				t.Errorf("ended with %v, want a failure", err)
			case tc.errIs != nil && !errors.Is(err, tc.errIs):
				t.Errorf("ended with %v, want one wrapping %v", err, tc.errIs)
			}
		})
	}
}

// TestDirectWatchFramesOfEverySize reads a protobuf watch stream whose
// frames are smaller than the reader's buffer, as large, and larger: a
// frame that fits is decoded from the buffer itself, which the following
// reads overwrite, a larger one from a copy; every decoded object must
// keep its own contents.
func TestDirectWatchFramesOfEverySize(t *testing.T) {
	const size = 4096 // the reader's buffer
	o := configMapType()
	var want []*corev1.ConfigMap
	var stream []byte
	fits, larger := 0, 0
	for n := range 40 {
		for _, cm := range []*corev1.ConfigMap{testConfigMap(fmt.Sprint("cm-", n)), testConfigMap(fmt.Sprint("small-", n))} {
			if n%2 == 0 && cm.Name[0] == 'c' {
				cm.Data["v"] = strings.Repeat(string(rune('a'+n%26)), size-150+2*n)
			}
			frame := protobufFrame(t, "ADDED", cm.DeepCopy(), "ConfigMap")
			if len(frame)-4 <= size {
				fits++
			} else {
				larger++
			}
			want, stream = append(want, cm), append(stream, frame...)
		}
	}
	if fits <= len(want)/2 || larger == 0 {
		t.Fatalf("%d frames fit the buffer and %d do not: the test lost its point", fits, larger)
	}
	for _, chunk := range []func(io.Reader) io.Reader{nil, iotest.HalfReader, iotest.OneByteReader} {
		s := newProtobufStream(o, bufio.NewReaderSize(chunked(stream, chunk), size))
		var got []*corev1.ConfigMap
		for {
			ev, err := s.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev.Object)
		}
		if len(got) != len(want) {
			t.Fatalf("decoded %d events, want %d", len(got), len(want))
		}
		for i, cm := range got {
			cm.TypeMeta = metav1.TypeMeta{}
			if !reflect.DeepEqual(cm, want[i]) {
				t.Fatalf("event %d decoded to %q/%q, want %q/%q", i, cm.Name, abbreviated(cm.Data["v"]), want[i].Name, abbreviated(want[i].Data["v"]))
			}
		}
	}
}

// TestDirectWatchStop stops a watch whose stream never ends: Next then
// reports its end, and the goroutine reading the stream ends (the
// package's TestMain checks for leaks).
func TestDirectWatchStop(t *testing.T) {
	r, pw := io.Pipe()
	w := newDirectWatch(context.Background(), configMapType(), r, "configmaps")
	go func() { _, _ = pw.Write(protobufFrame(t, "ADDED", testConfigMap("a"), "ConfigMap")) }()
	if ev, err := w.Next(context.Background()); err != nil || ev.Object.GetName() != "a" {
		t.Fatalf("Next() = %v, %v; want the added object", ev, err)
	}
	w.Stop()
	if _, err := w.Next(context.Background()); err != io.EOF {
		t.Errorf("Next() after Stop = %v, want io.EOF", err)
	}
}
