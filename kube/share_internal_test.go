package kube

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type stringSite = mapSite

func shareStrings(s *mapSharer, m map[string]string, st *stringSite) map[string]string {
	return share(&s.strings, s.seed, m, st)
}

func sharedWith(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// The walk reaches the maps of strings inside slices and pointers, and
// shares resource lists.
func TestShareWalksNestedMaps(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.Pod]())
	pod := func() *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "a"},
			Containers:   []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
			Affinity: &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}}}},
		}}
	}
	a, b := pod(), pod()
	s.shareObject(unsafe.Pointer(a))
	s.shareObject(unsafe.Pointer(b))
	if !sharedWith(a.Spec.NodeSelector, b.Spec.NodeSelector) {
		t.Error("equal node selectors are not shared")
	}
	matchLabels := func(p *corev1.Pod) map[string]string {
		return p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchLabels
	}
	if !sharedWith(matchLabels(a), matchLabels(b)) {
		t.Error("equal selectors in a slice of pointers are not shared")
	}
	limits := func(p *corev1.Pod) unsafe.Pointer {
		return reflect.ValueOf(p.Spec.Containers[0].Resources.Limits).UnsafePointer()
	}
	if limits(a) != limits(b) {
		t.Error("equal resource lists are not shared")
	}
}

// A site whose maps are all different turns cold, so the table does not
// fill with maps nobody shares, and the table stays bounded.
func TestShareColdSiteAndBound(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.ConfigMap]())
	st := new(stringSite)
	for i := range siteWindow {
		shareStrings(s, map[string]string{"data": fmt.Sprint(i)}, st)
	}
	if st.coldFor != siteColdFor || s.strings.count != siteWindow {
		t.Fatalf("after %d different maps: coldFor %d, %d maps held; want %d and %d", siteWindow, st.coldFor, s.strings.count, siteColdFor, siteWindow)
	}
	for i := range 4 * shareMaxMaps {
		shareStrings(s, map[string]string{"data": fmt.Sprint("other-", i)}, new(stringSite))
	}
	if s.strings.count > shareMaxMaps {
		t.Errorf("the table holds %d maps, more than %d", s.strings.count, shareMaxMaps)
	}
}

// Maps with more than shareMaxBytes of contents are not looked up; equal
// small maps are, whatever their order of insertion.
func TestShareSizes(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.ConfigMap]())
	st := new(stringSite)
	big := func() map[string]string { return map[string]string{"k": strings.Repeat("x", shareMaxBytes)} }
	a, b := big(), big()
	shareStrings(s, a, st)
	if got := shareStrings(s, b, new(stringSite)); sharedWith(got, a) {
		t.Error("a map over shareMaxBytes was shared")
	}
	for range siteWindow - 1 {
		shareStrings(s, big(), st)
	}
	if st.coldFor != siteColdFor {
		t.Errorf("after %d maps over shareMaxBytes, the site is not cold: it would hash each", siteWindow)
	}
	one := map[string]string{}
	two := map[string]string{}
	for i := range 20 {
		one[fmt.Sprint(i)] = "v"
		two[fmt.Sprint(19-i)] = "v"
	}
	shareStrings(s, one, new(stringSite))
	if got := shareStrings(s, two, new(stringSite)); !sharedWith(got, one) {
		t.Error("equal maps built in different orders were not shared")
	}
	if got := shareStrings(s, map[string]string{"0": "w"}, new(stringSite)); sharedWith(got, one) {
		t.Error("a different map was shared")
	}
}

// Resource lists are shared only when their quantities cannot be told
// apart: "0.25" and "250m" are equal values of different scales, and a
// quantity in inf.Dec form is never shared.
func TestShareQuantitiesExactly(t *testing.T) {
	if !quantityFields.ok {
		t.Fatal("resource.Quantity's fields are not those sameQuantity reads: resource lists are never shared")
	}
	s := newMapSharer(reflect.TypeFor[corev1.ConfigMap]())
	list := func(cpu string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Mi")}
	}
	shareList := func(l corev1.ResourceList) corev1.ResourceList {
		return share(&s.resources, s.seed, l, new(mapSite))
	}
	same := func(a, b corev1.ResourceList) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	first := shareList(list("250m"))
	if got := shareList(list("250m")); !same(got, first) {
		t.Error("equal resource lists are not shared")
	}
	if got := shareList(list("0.25")); same(got, first) {
		t.Error("0.25 CPU shared the list of 250m")
	}
	huge := list("1")
	huge[corev1.ResourceCPU] = resource.MustParse("123456789012345678901234567890")
	if _, _, dec, _, _ := quantityAt(unsafe.Pointer(new(huge[corev1.ResourceCPU]))); dec == nil {
		t.Fatal("a 30-digit quantity is not in inf.Dec form")
	}
	shareList(huge)
	again := list("1")
	again[corev1.ResourceCPU] = resource.MustParse("123456789012345678901234567890")
	if got := shareList(again); same(got, huge) {
		t.Error("a quantity in inf.Dec form was shared")
	}
	for _, pair := range [][2]string{{"1", "1"}, {"1Gi", "1Gi"}, {"1Gi", "1024Mi"}, {"1k", "1000"}, {"100m", "0.1"}, {"2", "2.0"}} {
		a, b := resource.MustParse(pair[0]), resource.MustParse(pair[1])
		want := reflect.DeepEqual(a, b)
		if got := sameQuantity(a, b); got != want {
			t.Errorf("sameQuantity(%s, %s) = %v, reflect.DeepEqual = %v", pair[0], pair[1], got, want)
		}
	}
}
