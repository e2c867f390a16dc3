package kube

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// decodeReadOnly decodes b as a source does for a read-only caller, into
// a new value, and returns it with the generated Unmarshal's. The source's
// decoder reads b from buf, a buffer reused for every message and
// overwritten once the decoder returns, as a stream reader's is.
func (c compiledType) decodeReadOnly(in *interner, buf *[]byte, b []byte) (want, got any, wantErr, gotErr error) {
	w := reflect.New(c.typ)
	wantErr = w.Interface().(protobufUnmarshaler).Unmarshal(b)
	g := reflect.New(c.typ)
	*buf = append((*buf)[:0], b...)
	in.mu.Lock()
	in.readOnly = true
	gotErr = c.pt.decodeObject(in, c.typ, *buf, g.UnsafePointer())
	in.mu.Unlock()
	overwrite(*buf)
	return w.Interface(), g.Interface(), wantErr, gotErr
}

// A readOnlyCheck decodes messages of one type in turn for a read-only
// caller, as a source does, checks each against the generated Unmarshal,
// and keeps what it decoded, so that a later decoding that writes into
// what an earlier one shared is caught.
type readOnlyCheck struct {
	c                  compiledType
	in                 *interner
	buf                []byte // the stream's buffer, see decodeReadOnly
	decoded, generated []any
}

func newReadOnlyCheck(c compiledType) *readOnlyCheck {
	return &readOnlyCheck{c: c, in: newInterner(c.typ)}
}

func (r *readOnlyCheck) check(t testing.TB, b []byte) {
	t.Helper()
	want, got, wantErr, gotErr := r.c.decodeReadOnly(r.in, &r.buf, b)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%v: generated Unmarshal's error %v, read-only decoder's %v, on %x", r.c.typ, wantErr, gotErr, b)
	case wantErr == nil && !reflect.DeepEqual(want, got):
		t.Fatalf("%v: read-only decoder's value differs from the generated Unmarshal's on %x:\nwant %#v\ngot  %#v", r.c.typ, b, want, got)
	case wantErr == nil:
		r.decoded, r.generated = append(r.decoded, got), append(r.generated, want)
	}
}

// unchanged fails if a value decoded earlier no longer equals the
// generated Unmarshal's.
func (r *readOnlyCheck) unchanged(t testing.TB) {
	t.Helper()
	for i := range r.decoded {
		if !reflect.DeepEqual(r.decoded[i], r.generated[i]) {
			t.Fatalf("%v: value %d changed after later decodings:\nwant %#v\ngot  %#v", r.c.typ, i, r.generated[i], r.decoded[i])
		}
	}
}

// Decoding for a read-only caller, which shares messages, maps and
// slices between objects, decodes what the generated Unmarshal decodes
// and refuses what it refuses, and never changes an object decoded
// before: over randomly filled objects of every kind client-go knows,
// each followed by mutations of it (which repeat most of its messages,
// and merge some of them).
func TestReadOnlyDecodingMatchesGenerated(t *testing.T) {
	const objects, mutations = 10, 6
	for i, c := range compiledTypes(t) {
		t.Run(c.typ.String(), func(t *testing.T) {
			t.Parallel()
			check := newReadOnlyCheck(c)
			f := newFiller(int64(i))
			r := rand.New(rand.NewSource(int64(i)))
			for range objects {
				b := c.marshalRandom(t, f)
				check.check(t, b)
				for range mutations {
					check.check(t, mutate(r, b))
					check.check(t, b)
				}
			}
			check.unchanged(t)
		})
	}
}

// FuzzReadOnlyProtobufDecoder checks decoding for a read-only caller
// against the generated Unmarshal on arbitrary bytes, each decoded after
// a message of the same type that it may share with (and after all the
// messages of that type decoded before): both decode to
// values equal to the generated Unmarshal's, or fail where it fails, and
// the first is not changed by the second.
func FuzzReadOnlyProtobufDecoder(f *testing.F) {
	types := compiledTypes(f)
	fill := newFiller(2)
	for i, c := range types {
		if kind := c.typ.Name(); kind == "Pod" || kind == "Service" || kind == "Deployment" || i%16 == 0 {
			b := c.marshalRandom(f, fill)
			f.Add(uint16(i), b, b)
		}
	}
	for _, oc := range overrunCases {
		i := slices.IndexFunc(types, func(c compiledType) bool { return c.typ == oc.typ })
		f.Add(uint16(i), oc.msg('a'), oc.msg('b'))
	}
	checks := make([]*readOnlyCheck, len(types))
	for i, c := range types {
		checks[i] = newReadOnlyCheck(c)
	}
	f.Fuzz(func(t *testing.T, n uint16, first, second []byte) {
		check := checks[int(n)%len(types)]
		check.decoded, check.generated = nil, nil
		check.check(t, first)
		check.check(t, second)
		check.unchanged(t)
	})
}

// sharedPod is Pod i of one template, whose service account volume has a
// name of its own, mounted by its container: its volumes, its
// containers and their mounts differ from every other Pod's, while most
// messages they hold repeat.
func sharedPod(i int) *corev1.Pod {
	p := serverPod(i)
	token := fmt.Sprintf("kube-api-access-%05d", i)
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: token, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: new(int64(3607))}}},
	}}})
	c := &p.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
	return p
}

// Objects decoded for a read-only caller share the messages that repeat
// between them, by pointer (probes, projected volume sources) or as
// copies of the same value (resources, volume mounts, volumes) holding
// the same pointers and maps, while the messages that differ are their
// own; objects decoded for a caller that may modify them share none.
func TestReadOnlyDecodingSharesEqualMessages(t *testing.T) {
	for _, ro := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%t", ro), func(t *testing.T) {
			o := podType(false)
			if ro {
				o = readOnly(o)
			}
			var pods []*corev1.Pod
			for i := range 3 {
				pods = append(pods, decodeChecked(t, o, sharedPod(i)))
			}
			a, b := pods[1], pods[2]
			ca, cb := &a.Spec.Containers[0], &b.Spec.Containers[0]
			shared := map[string]bool{
				"readiness probe":      ca.ReadinessProbe == cb.ReadinessProbe,
				"probe's HTTP action":  ca.LivenessProbe.HTTPGet == cb.LivenessProbe.HTTPGet,
				"resources' limits":    mapID(ca.Resources.Limits) == mapID(cb.Resources.Limits),
				"config volume source": a.Spec.Volumes[0].ConfigMap == b.Spec.Volumes[0].ConfigMap,
				"token volume":         a.Spec.Volumes[1].Projected == b.Spec.Volumes[1].Projected,
			}
			for what, ok := range shared {
				if ok != ro {
					t.Errorf("%s shared: %t, want %t", what, ok, ro)
				}
			}
			if &ca.VolumeMounts[0] == &cb.VolumeMounts[0] || &a.Spec.Volumes[0] == &b.Spec.Volumes[0] {
				t.Error("slices that differ share their arrays")
			}
		})
	}
}

// A message field that appears twice is merged by the generated code into
// what its first appearance decoded: an object whose fields merge is
// decoded again without sharing messages, so that the merge writes into
// messages of its own, never into those it would share with an earlier
// object.
func TestReadOnlyDecodingMergesIntoItsOwnMessages(t *testing.T) {
	o := readOnly(podType(false))
	marshal := func(p *corev1.Pod) []byte { return marshaled(t, p) }
	decode := func(raw []byte) *corev1.Pod { return decodedWith(t, o, raw) }
	// A Pod whose spec and security context are kept for sharing by its
	// second decoding, so the earlier Pod holds the shared ones.
	earlierRaw := marshal(&corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsGroup: new(int64(5))}}})
	decode(earlierRaw)
	earlier := decode(earlierRaw)
	// The earlier Pod's spec, then a spec of its own: the generated code
	// merges the security context (into the earlier Pod's, if it were
	// shared) and appends a container.
	tail := marshal(&corev1.Pod{Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsUser: new(int64(1000))},
		Containers:      []corev1.Container{{Name: "second", ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 7}}},
	}})
	merged := append(append([]byte{}, earlierRaw...), tail...)
	want := &corev1.Pod{}
	if err := want.Unmarshal(merged); err != nil {
		t.Fatal(err)
	}
	if got := decode(merged); !reflect.DeepEqual(got, want) {
		t.Errorf("a Pod whose fields merge decodes to\n%+v\nwant\n%+v", got, want)
	}
	if sc := earlier.Spec.SecurityContext; sc.RunAsUser != nil || *sc.RunAsGroup != 5 {
		t.Errorf("merging changed an earlier Pod's security context: %+v", sc)
	}
	decodeChecked(t, o, sharedPod(0)) // and the decoder goes on sharing
	decodeChecked(t, o, sharedPod(0))
}

// A message holding a quantity in inf.Dec form is never shared: copies of
// it would share the decimal, which Quantity's methods may change in
// place.
func TestReadOnlyDecodingKeepsDecimalMessagesApart(t *testing.T) {
	o := readOnly(podType(false))
	pod := sharedPod(0)
	pod.Spec.Volumes[0].EmptyDir = &corev1.EmptyDirVolumeSource{SizeLimit: new(resource.MustParse("123456789012345678901234567890"))}
	pod.Spec.Volumes[0].ConfigMap = nil
	raw := marshaled(t, pod)
	var kept []*corev1.Pod
	for range 3 {
		got := decodedWith(t, o, raw)
		kept = append(kept, got)
	}
	runtime.KeepAlive(kept)
	if kept[0].Spec.Volumes[0].EmptyDir == kept[1].Spec.Volumes[0].EmptyDir || kept[1].Spec.Volumes[0].EmptyDir == kept[2].Spec.Volumes[0].EmptyDir {
		t.Error("a message with a quantity in inf.Dec form was shared")
	}
}

// protobufField returns field num (below 16) holding the
// length-delimited value v (shorter than 128 bytes).
func protobufField(num int, v ...byte) []byte {
	return append([]byte{byte(num<<3 | 2), byte(len(v))}, v...)
}

// overrunCases are messages holding a map entry whose value runs past
// the entry's end, which the generated Unmarshal reads up to the end of
// the enclosing message: what such an entry decodes to depends on the
// bytes after its run of entries. Each case builds messages whose run is
// the same and whose following bytes, follow, differ.
var overrunCases = []struct {
	name string
	typ  reflect.Type
	msg  func(follow byte) []byte
}{{
	// A ConfigMap's data (field 2), then its metadata (field 1) holding a
	// name (field 1).
	name: "top-level map", typ: reflect.TypeFor[corev1.ConfigMap](),
	msg: func(follow byte) []byte { return append(overrunEntry(2, 5), protobufField(1, 0x0a, 0x01, follow)...) },
}, {
	// The labels (field 11) of a Binding's metadata (field 1), then the
	// metadata's name: the case the fuzzer found.
	name: "labels in metadata", typ: reflect.TypeFor[corev1.Binding](),
	msg: func(follow byte) []byte { return protobufField(1, append(overrunEntry(11, 3), 0x0a, 0x01, follow)...) },
}}

// overrunEntry is field num holding a map entry of key "k" whose value,
// of n bytes, lies wholly past the entry.
func overrunEntry(num int, n byte) []byte { return protobufField(num, 0x0a, 0x01, 'k', 0x12, n) }

// A read-only decoder that shared a run of map entries by its own bytes
// gave a later object an earlier one's value when an entry ran past the
// run (see overrunCases): every message decodes as the generated
// Unmarshal does, and no object decoded earlier changes.
func TestSharedRunIsDecodedFromItsOwnBytesOnly(t *testing.T) {
	for _, tt := range overrunCases {
		t.Run(tt.name, func(t *testing.T) {
			check := newReadOnlyCheck(compiledType{tt.typ, compileProtobuf(tt.typ)})
			for _, follow := range []byte{'a', 'a', 'b', 'a', 'c'} {
				check.check(t, tt.msg(follow))
			}
			check.unchanged(t)
		})
	}
}
