package kube

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

// protobufMarshaler is implemented by the generated API types.
type protobufMarshaler interface {
	Marshal() ([]byte, error)
}

// apiTypes returns the struct types of every kind client-go knows, in
// the packages under k8s.io/api, sorted by name.
func apiTypes() []reflect.Type {
	seen := map[reflect.Type]bool{}
	var types []reflect.Type
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if seen[typ] || gvk.Version == runtime.APIVersionInternal || !strings.HasPrefix(typ.PkgPath(), "k8s.io/api/") {
			continue
		}
		seen[typ] = true
		types = append(types, typ)
	}
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	return types
}

// compiledTypes returns the struct types of every protobuf kind client-go
// knows, and their decoders, sorted by name. It fails if any of the kinds
// of core/v1, apps/v1 or coordination/v1 does not compile.
func compiledTypes(t testing.TB) []compiledType {
	t.Helper()
	var types []compiledType
	for _, typ := range apiTypes() {
		if _, ok := reflect.New(typ).Interface().(protobufUnmarshaler); !ok {
			continue
		}
		pt := compileProtobuf(typ)
		if pt == nil {
			switch typ.PkgPath() {
			case "k8s.io/api/core/v1", "k8s.io/api/apps/v1", "k8s.io/api/coordination/v1":
				t.Errorf("%v does not compile", typ)
			}
			continue
		}
		types = append(types, compiledType{typ, pt})
	}
	return types
}

type compiledType struct {
	typ reflect.Type
	pt  *pbType
}

// decodeBoth decodes b with the generated Unmarshal and the compiled
// decoder, each into a new value; the compiled decoder reads a copy of b
// that is overwritten once it returns, as a stream's buffer is.
func (c compiledType) decodeBoth(in *interner, b []byte) (want, got any, wantErr, gotErr error) {
	w := reflect.New(c.typ)
	wantErr = w.Interface().(protobufUnmarshaler).Unmarshal(b)
	g := reflect.New(c.typ)
	buf := slices.Clone(b)
	in.mu.Lock()
	gotErr = c.pt.decode(in, buf, g.UnsafePointer())
	in.mu.Unlock()
	overwrite(buf)
	return w.Interface(), g.Interface(), wantErr, gotErr
}

// overwrite changes every byte of buf, as the next read of a stream
// changes its buffer: a decoded value that kept any of buf's memory no
// longer equals what was decoded.
func overwrite(buf []byte) {
	for i := range buf {
		buf[i] ^= 0xff
	}
}

// check fails unless both decoders fail on b, or both succeed with equal
// values.
func (c compiledType) check(t testing.TB, in *interner, b []byte) {
	t.Helper()
	want, got, wantErr, gotErr := c.decodeBoth(in, b)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%v: generated Unmarshal's error %v, compiled decoder's %v, on %x", c.typ, wantErr, gotErr, b)
	case wantErr == nil && !reflect.DeepEqual(want, got):
		t.Fatalf("%v: compiled decoder's value differs from the generated Unmarshal's on %x:\nwant %#v\ngot  %#v", c.typ, b, want, got)
	}
}

func newFiller(seed int64) *randfill.Filler {
	return fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(scheme.Scheme)).
		NilChance(0.2).NumElements(0, 3).MaxDepth(8)
}

// marshalRandom returns a randomly filled value of c's type, marshalled.
func (c compiledType) marshalRandom(t testing.TB, f *randfill.Filler) []byte {
	t.Helper()
	v := reflect.New(c.typ)
	f.Fill(v.Interface())
	b, err := v.Interface().(protobufMarshaler).Marshal()
	if err != nil {
		t.Fatalf("%v: %v", c.typ, err)
	}
	return b
}

// mutate returns b with a few random edits: bytes changed, inserted,
// removed, or the message cut short.
func mutate(r *rand.Rand, b []byte) []byte {
	b = slices.Clone(b)
	for range 1 + r.Intn(3) {
		if len(b) == 0 {
			return append(b, byte(r.Intn(256)))
		}
		i := r.Intn(len(b))
		switch r.Intn(5) {
		case 0:
			b[i] = byte(r.Intn(256))
		case 1:
			b[i] ^= 1 << r.Intn(8)
		case 2:
			b = slices.Insert(b, i, byte(r.Intn(256)))
		case 3:
			b = slices.Delete(b, i, i+1)
		case 4:
			b = b[:i]
		}
	}
	return b
}

// The compiled decoder decodes what the generated Unmarshal decodes, to
// equal values, and refuses what it refuses: over randomly filled
// objects of every kind client-go knows, and mutations of them.
func TestProtobufDecoderMatchesGenerated(t *testing.T) {
	types := compiledTypes(t)
	if len(types) < 100 {
		t.Fatalf("%d types compile, want most of client-go's", len(types))
	}
	const objects, mutations = 30, 20
	for i, c := range types {
		t.Run(c.typ.String(), func(t *testing.T) {
			in := newInterner(c.typ)
			f := newFiller(int64(i))
			r := rand.New(rand.NewSource(int64(i)))
			for range objects {
				b := c.marshalRandom(t, f)
				c.check(t, in, b)
				for range mutations {
					c.check(t, in, mutate(r, b))
				}
			}
		})
	}
}

// Wire forms the generated Marshal never writes but a peer may: unpacked
// repeated integers, negative int32 values, repeated nested messages,
// group fields, truncated fields, wrong wire types.
func TestProtobufDecoderEdgeCases(t *testing.T) {
	pod := compiledType{reflect.TypeFor[corev1.Pod](), compileProtobuf(reflect.TypeFor[corev1.Pod]())}
	podSpec := compiledType{reflect.TypeFor[corev1.PodSpec](), compileProtobuf(reflect.TypeFor[corev1.PodSpec]())}
	sc := compiledType{reflect.TypeFor[corev1.PodSecurityContext](), compileProtobuf(reflect.TypeFor[corev1.PodSecurityContext]())}
	secret := compiledType{reflect.TypeFor[corev1.Secret](), compileProtobuf(reflect.TypeFor[corev1.Secret]())}
	ranges := compiledType{reflect.TypeFor[corev1.RangeAllocation](), compileProtobuf(reflect.TypeFor[corev1.RangeAllocation]())}
	tests := []struct {
		name string
		c    compiledType
		b    []byte
	}{
		{"empty", pod, nil},
		{"supplementalGroups unpacked", sc, []byte{0x20, 0x05, 0x20, 0x07}},
		{"supplementalGroups packed", sc, []byte{0x22, 0x02, 0x05, 0x07}},
		{"supplementalGroups packed and empty", sc, []byte{0x22, 0x00}},
		{"packed run whose last value ends past it", sc, []byte{0x22, 0x01, 0x85, 0x01}},
		{"packed run cut short", sc, []byte{0x22, 0x02, 0x85}},
		{"runAsUser negative", sc, []byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"varint of eleven bytes", sc, []byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"priority int32 from a negative varint", podSpec, []byte{0xc8, 0x01, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"spec twice, merged", pod, []byte{0x12, 0x04, 0x3a, 0x02, 0x61, 0x62, 0x12, 0x03, 0x42, 0x01, 0x63}},
		{"metadata name twice", pod, []byte{0x0a, 0x06, 0x0a, 0x01, 0x61, 0x0a, 0x01, 0x62}},
		{"unknown field", pod, []byte{0xf8, 0x07, 0x01}},
		{"unknown group", pod, []byte{0xfb, 0x07, 0x08, 0x01, 0xfc, 0x07}},
		{"unterminated group", pod, []byte{0xfb, 0x07, 0x08, 0x01}},
		{"end group", pod, []byte{0x0c}},
		{"field number zero", pod, []byte{0x02, 0x00}},
		{"field number past 32 bits, truncated to 1", pod, []byte{0x8a, 0x80, 0x80, 0x80, 0x80, 0x02, 0x00}},
		{"wrong wire type", pod, []byte{0x08, 0x01}},
		{"length past the end", pod, []byte{0x0a, 0x05, 0x0a}},
		{"wire type 7", pod, []byte{0x0f}},
		{"fixed64 unknown field cut short", pod, []byte{0xf9, 0x07, 0x01}},
		{"secret data entry without value", secret, []byte{0x12, 0x03, 0x0a, 0x01, 0x6b}},
		{"secret data entry with empty value", secret, []byte{0x12, 0x05, 0x0a, 0x01, 0x6b, 0x12, 0x00}},
		{"secret data entry key as varint wire type", secret, []byte{0x12, 0x04, 0x08, 0x01, 0x6b, 0x00}},
		{"secret data entry reading past itself", secret, []byte{0x12, 0x02, 0x0a, 0x03, 0x6b, 0x6b, 0x6b}},
		{"secret data entry unknown field past itself", secret, []byte{0x12, 0x02, 0x18, 0x01, 0x00}},
		{"empty bytes", ranges, []byte{0x1a, 0x00}},
		{"bytes twice", ranges, []byte{0x1a, 0x01, 0x61, 0x1a, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInterner(tt.c.typ)
			tt.c.check(t, in, tt.b)
		})
	}
}

// FuzzProtobufDecoder checks the compiled decoder against the generated
// Unmarshal on arbitrary bytes: it never panics, and it succeeds with an
// equal value exactly when the generated Unmarshal succeeds.
func FuzzProtobufDecoder(f *testing.F) {
	types := compiledTypes(f)
	fill := newFiller(1)
	for i, c := range types {
		if kind := c.typ.Name(); kind == "Pod" || kind == "ConfigMap" || kind == "Service" || kind == "Node" || kind == "Deployment" || kind == "Lease" || i%16 == 0 {
			f.Add(uint16(i), c.marshalRandom(f, fill))
		}
	}
	interners := make([]*interner, len(types))
	for i, c := range types {
		interners[i] = newInterner(c.typ)
	}
	f.Fuzz(func(t *testing.T, n uint16, b []byte) {
		i := int(n) % len(types)
		types[i].check(t, interners[i], b)
	})
}

// Objects the compiled decoder decodes share their repeated strings and
// field sets, keep their unique strings and maps their own, and alias
// nothing of the buffer they were decoded from.
func TestProtobufDecoderInterns(t *testing.T) {
	o := newObjectType[*corev1.Pod](reflect.TypeFor[corev1.Pod](), corev1.SchemeGroupVersion.WithKind("Pod"), false)
	if o.pb == nil {
		t.Fatal("Pod does not compile")
	}
	var pods []*corev1.Pod
	var want []*corev1.Pod
	buf := make([]byte, 0, 64<<10)
	for i := range 3 {
		b, err := serverPod(i).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		buf = append(buf[:0], b...) // one buffer, reused as a watch stream's frame is
		p := o.new()
		if err := o.unmarshal(buf, p); err != nil {
			t.Fatal(err)
		}
		w := &corev1.Pod{}
		if err := w.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		for j := range buf {
			buf[j] = 0xff
		}
		pods, want = append(pods, p), append(want, w)
	}
	if !reflect.DeepEqual(pods, want) {
		t.Fatal("decoded Pods differ from the generated Unmarshal's after their buffer was overwritten")
	}
	a, b := pods[1], pods[2]
	switch {
	case !sameString(a.Namespace, b.Namespace):
		t.Error("namespace not shared")
	case !sameString(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image):
		t.Error("image not shared")
	case !sameString(a.Labels["app"], b.Labels["app"]):
		t.Error("label value not shared")
	case !sameString(a.ManagedFields[1].Manager, b.ManagedFields[1].Manager):
		t.Error("field manager not shared")
	case a.ManagedFields[0].FieldsV1 != b.ManagedFields[0].FieldsV1 || a.ManagedFields[1].FieldsV1 != b.ManagedFields[1].FieldsV1:
		t.Error("field sets not shared")
	case sameString(a.Name, b.Name) || sameString(string(a.UID), string(b.UID)):
		t.Error("unique strings share memory")
	case reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(b.Labels).UnsafePointer():
		t.Error("labels map shared")
	}
}

// A source that drops managedFields drops them from the objects the
// compiled decoder decodes.
func TestProtobufDecoderDropsManagedFields(t *testing.T) {
	o := newObjectType[*corev1.Pod](reflect.TypeFor[corev1.Pod](), corev1.SchemeGroupVersion.WithKind("Pod"), true)
	b, err := serverPod(1).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p := o.new()
	if err := o.unmarshal(b, p); err != nil {
		t.Fatal(err)
	}
	if o.pb == nil || p.ManagedFields != nil || p.Name != serverPod(1).Name {
		t.Fatalf("compiled %t, managedFields %v, name %q: want compiled, none, and the rest decoded", o.pb != nil, p.ManagedFields, p.Name)
	}
}

// Quantities parsed once and copied from then on equal the parsed ones,
// and those held in a decimal are not shared between objects.
func TestProtobufDecoderQuantities(t *testing.T) {
	c := compiledType{reflect.TypeFor[corev1.ResourceRequirements](), compileProtobuf(reflect.TypeFor[corev1.ResourceRequirements]())}
	in := newInterner(c.typ)
	values := []string{"0", "250m", "256Mi", "1.5", "1Ki", "12345678901234567890123456789", "0.000000000000000000001", "1e3"}
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for i, v := range values {
		r.Requests[corev1.ResourceName(fmt.Sprint(i))] = resource.MustParse(v)
		r.Limits[corev1.ResourceName(fmt.Sprint(i))] = resource.MustParse(v)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var got []*corev1.ResourceRequirements
	for range 2 {
		c.check(t, in, b)
		_, g, _, _ := c.decodeBoth(in, b)
		got = append(got, g.(*corev1.ResourceRequirements))
	}
	big := got[0].Requests["5"]
	big.Add(resource.MustParse("1"))
	if !reflect.DeepEqual(got[1].Requests["5"], resource.MustParse(values[5])) {
		t.Errorf("adding to one object's quantity changed another's: %v", got[1].Requests["5"])
	}
}

// With managedFields dropped, the compiled decoder skips the object's own
// managedFields and decodes the rest as the generated Unmarshal does,
// those of the ObjectMetas it holds included.
func TestProtobufDecoderSkipsManagedFields(t *testing.T) {
	d := &appsv1.Deployment{}
	d.Name = "web"
	entry := serverPod(0).ManagedFields[:1]
	d.ManagedFields = entry
	d.Spec.Template.ManagedFields = entry
	b, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := &appsv1.Deployment{}
	if err := want.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	want.SetManagedFields(nil)
	o := newObjectType[*appsv1.Deployment](reflect.TypeFor[appsv1.Deployment](), appsv1.SchemeGroupVersion.WithKind("Deployment"), true)
	got := o.new()
	if err := o.unmarshal(b, got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded Deployment differs from the generated Unmarshal's without managedFields:\nwant %#v\ngot  %#v", want, got)
	}
	if f := o.pb.fields[1].msg.fields[17]; f.op != pbNone {
		t.Errorf("the object's managedFields are decoded (op %d), want skipped", f.op)
	}
}
