package kube

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// readOnly returns o for objects that will not be modified, as a source
// that shares maps makes it.
func readOnly[T Object](o *objectType[T]) *objectType[T] {
	return o.readOnlyObjects(newMapSharer(o.elem))
}

// podType returns the decoding of Pods, without their managedFields with
// dropManaged.
func podType(dropManaged bool) *objectType[*corev1.Pod] {
	return newObjectType[*corev1.Pod](reflect.TypeFor[corev1.Pod](), corev1.SchemeGroupVersion.WithKind("Pod"), dropManaged)
}

// decodeChecked marshals p, decodes it with o and returns what o decoded,
// which must equal what the generated Unmarshal decodes.
func decodeChecked(t *testing.T, o *objectType[*corev1.Pod], p *corev1.Pod) *corev1.Pod {
	t.Helper()
	raw := marshaled(t, p)
	want := &corev1.Pod{}
	if err := want.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
	got := decodedWith(t, o, raw)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Pod %s decodes to\n%+v\nwant\n%+v", p.Name, got, want)
	}
	return got
}

// marshaled returns m's protobuf encoding.
func marshaled(t *testing.T, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// decodedWith decodes raw into a new object with o.
func decodedWith[T Object](t *testing.T, o *objectType[T], raw []byte) T {
	t.Helper()
	obj := o.new()
	if err := o.unmarshal(raw, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// mapID identifies a map: two objects share a map when their maps have
// the same ID.
func mapID[M ~map[K]V, K comparable, V any](m M) uintptr {
	return uintptr(reflect.ValueOf(m).UnsafePointer())
}

// readOnlyPod is a Pod of group i%3 whose labels and resource lists repeat
// within its group, and whose annotation is its own.
func readOnlyPod(i int) *corev1.Pod {
	p := serverPod(i)
	p.Labels = map[string]string{"app": "web", "group": fmt.Sprint(i % 3)}
	p.Annotations = map[string]string{"seq": fmt.Sprint(i)}
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(fmt.Sprintf("%dm", 100*(i%3+1))), corev1.ResourceMemory: resource.MustParse("64Mi"),
	}
	return p
}

// Objects decoded for a read-only caller share their equal maps of
// strings and resource lists, and their equal slices of messages (the
// containers), and only those; objects decoded for a caller that may
// modify them share none. Either way they equal what the
// generated Unmarshal makes of the same bytes.
func TestReadOnlyDecodingSharesEqualMaps(t *testing.T) {
	const n = 300
	for _, ro := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%t", ro), func(t *testing.T) {
			o := podType(false)
			if ro {
				o = readOnly(o)
			}
			labels := map[string]uintptr{}   // by group: the map of the first Pod
			requests := map[string]uintptr{} // the same
			seen := map[uintptr]int{}        // every map ID: the Pod that had it first
			sharedLabels, sharedRequests, sharedContainers := 0, 0, 0
			kept := make([]*corev1.Pod, 0, n) // alive, so that no map's address is reused
			for i := range n {
				got := decodeChecked(t, o, readOnlyPod(i))
				kept = append(kept, got)
				containers := got.Spec.Containers
				if ro && cap(containers) != len(containers) {
					t.Fatalf("Pod %d's containers have room to grow into: %d of %d", i, len(containers), cap(containers))
				}
				if i >= 3 && &containers[0] == &kept[i%3].Spec.Containers[0] { // the first Pod of its group
					sharedContainers++
				}
				group := got.Labels["group"]
				l, r := mapID(got.Labels), mapID(got.Spec.Containers[0].Resources.Requests)
				if first, ok := labels[group]; ok && first == l {
					sharedLabels++
				}
				if first, ok := requests[group]; ok && first == r {
					sharedRequests++
				}
				labels[group], requests[group] = l, r
				if j, ok := seen[mapID(got.Annotations)]; ok {
					t.Fatalf("Pod %d shares its own annotations with Pod %d", i, j)
				}
				for _, id := range []uintptr{l, r, mapID(got.Annotations)} {
					if _, ok := seen[id]; !ok {
						seen[id] = i
					}
				}
			}
			runtime.KeepAlive(kept)
			if !ro {
				if sharedLabels+sharedRequests+sharedContainers > 0 {
					t.Errorf("objects that may be modified share: %d labels, %d resource lists, %d containers", sharedLabels, sharedRequests, sharedContainers)
				}
				return
			}
			// Every Pod after the first of its group has its containers.
			if want := n - 3; sharedContainers != want {
				t.Errorf("%d Pods share the containers of the first of their group, want %d", sharedContainers, want)
			}
			// Every Pod after the first of its group shares its group's maps.
			if want := n - 3; sharedLabels != want || sharedRequests != want {
				t.Errorf("%d labels and %d resource lists shared, want %d each", sharedLabels, sharedRequests, want)
			}
		})
	}
}

// A message may hold a map's entries in two runs, which the generated
// code merges: the second run must go into a map of the object's own, not
// into the shared map the first run found.
func TestReadOnlyDecodingMergesIntoItsOwnMap(t *testing.T) {
	o := readOnly(configMapType())
	marshal := func(cm *corev1.ConfigMap) []byte { return marshaled(t, cm) }
	decode := func(raw []byte) *corev1.ConfigMap { return decodedWith(t, o, raw) }
	first := marshal(&corev1.ConfigMap{Data: map[string]string{"a": "1"}})
	earlier := decode(first)
	if again := decode(first); mapID(again.Data) != mapID(earlier.Data) {
		t.Fatal("equal maps are not shared")
	}
	split := append(append(append([]byte{}, first...), marshal(&corev1.ConfigMap{Immutable: new(true)})...),
		marshal(&corev1.ConfigMap{Data: map[string]string{"b": "2"}})...)
	want := &corev1.ConfigMap{}
	if err := want.Unmarshal(split); err != nil {
		t.Fatal(err)
	}
	if got := decode(split); !reflect.DeepEqual(got, want) {
		t.Errorf("a map in two runs decodes to %v, want %v", got.Data, want.Data)
	}
	if !reflect.DeepEqual(earlier.Data, map[string]string{"a": "1"}) {
		t.Errorf("merging changed the shared map: %v", earlier.Data)
	}
}

// The same holds for a repeated message field in two runs: the second is
// appended to a copy of the shared elements.
func TestReadOnlyDecodingAppendsToItsOwnSlice(t *testing.T) {
	o := readOnly(podType(false))
	marshal := func(p *corev1.Pod) []byte { return marshaled(t, p) }
	decode := func(raw []byte) *corev1.Pod { return decodedWith(t, o, raw) }
	first := marshal(&corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}})
	earlier := decode(first)
	if again := decode(first); &again.Spec.Containers[0] != &earlier.Spec.Containers[0] {
		t.Fatal("equal containers are not shared")
	}
	split := append(append([]byte{}, first...), marshal(&corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "b"}}}})...)
	want := &corev1.Pod{}
	if err := want.Unmarshal(split); err != nil {
		t.Fatal(err)
	}
	if got := decode(split); !reflect.DeepEqual(got, want) {
		t.Errorf("containers in two runs decode to %v, want %v", got.Spec.Containers, want.Spec.Containers)
	}
	if len(earlier.Spec.Containers) != 1 || earlier.Spec.Containers[0].Name != "a" {
		t.Errorf("appending changed the shared containers: %v", earlier.Spec.Containers)
	}
	if grown := earlier.Spec.Containers[:cap(earlier.Spec.Containers)]; len(grown) != 1 {
		t.Errorf("the shared containers have room for %d", len(grown))
	}
}

// A resource list holding a quantity in inf.Dec form is never shared:
// copies of that quantity share the decimal, which Quantity's methods
// may change in place.
func TestReadOnlyDecodingKeepsDecimalQuantitiesApart(t *testing.T) {
	o := readOnly(podType(false))
	pod := readOnlyPod(0)
	pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("123456789012345678901234567890")
	raw := marshaled(t, pod)
	var ids []uintptr
	var kept []*corev1.Pod // alive, so that no map's address is reused
	for range 3 {
		got := decodedWith(t, o, raw)
		kept = append(kept, got)
		ids = append(ids, mapID(got.Spec.Containers[0].Resources.Requests))
	}
	runtime.KeepAlive(kept)
	if ids[0] == ids[1] || ids[1] == ids[2] {
		t.Error("a resource list with a quantity in inf.Dec form was shared")
	}
}
