package kube

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sharedWith(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// The walk reaches the maps of strings inside slices and pointers, and
// leaves maps of other types alone.
func TestShareWalksNestedMaps(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.Pod]())
	pod := func() *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "a"},
			Containers:   []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{}}}},
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
	if reflect.ValueOf(a.Spec.Containers[0].Resources.Limits).UnsafePointer() == reflect.ValueOf(b.Spec.Containers[0].Resources.Limits).UnsafePointer() {
		t.Error("a map of quantities was shared")
	}
}

// A site whose maps are all different turns cold, so the table does not
// fill with maps nobody shares, and the table stays bounded.
func TestShareColdSiteAndBound(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.ConfigMap]())
	st := new(mapSite)
	for i := range siteWindow {
		s.share(map[string]string{"data": fmt.Sprint(i)}, st)
	}
	if st.coldFor != siteColdFor || s.count != siteWindow {
		t.Fatalf("after %d different maps: coldFor %d, %d maps held; want %d and %d", siteWindow, st.coldFor, s.count, siteColdFor, siteWindow)
	}
	for i := range 4 * shareMaxMaps {
		s.share(map[string]string{"data": fmt.Sprint("other-", i)}, new(mapSite))
	}
	if s.count > shareMaxMaps {
		t.Errorf("the table holds %d maps, more than %d", s.count, shareMaxMaps)
	}
}

// Maps with more than shareMaxBytes of contents are not looked up; equal
// small maps are, whatever their order of insertion.
func TestShareSizes(t *testing.T) {
	s := newMapSharer(reflect.TypeFor[corev1.ConfigMap]())
	st := new(mapSite)
	big := func() map[string]string { return map[string]string{"k": strings.Repeat("x", shareMaxBytes)} }
	a, b := big(), big()
	s.share(a, st)
	if got := s.share(b, new(mapSite)); sharedWith(got, a) {
		t.Error("a map over shareMaxBytes was shared")
	}
	one := map[string]string{}
	two := map[string]string{}
	for i := range 20 {
		one[fmt.Sprint(i)] = "v"
		two[fmt.Sprint(19-i)] = "v"
	}
	s.share(one, new(mapSite))
	if got := s.share(two, new(mapSite)); !sharedWith(got, one) {
		t.Error("equal maps built in different orders were not shared")
	}
	if got := s.share(map[string]string{"0": "w"}, new(mapSite)); sharedWith(got, one) {
		t.Error("a different map was shared")
	}
}
