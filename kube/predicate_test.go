package kube_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// accepted says which events of a predicate pass.
type accepted struct{ Create, Update, Delete, DeleteUnknown bool }

// accepts applies p to the creation of obj, the update from old to obj,
// the deletion of obj and a deletion whose last state is unknown.
func accepts(p controller.Predicate[*corev1.Pod], old, obj *corev1.Pod) accepted {
	call := func(f func() bool, set bool) bool { return !set || f() }
	return accepted{
		Create:        call(func() bool { return p.Create(obj) }, p.Create != nil),
		Update:        call(func() bool { return p.Update(old, obj) }, p.Update != nil),
		Delete:        call(func() bool { return p.Delete(informer.Deleted[*corev1.Pod]{Key: "ns/p", Object: obj}) }, p.Delete != nil),
		DeleteUnknown: call(func() bool { return p.Delete(informer.Deleted[*corev1.Pod]{Key: "ns/p", Inferred: true}) }, p.Delete != nil),
	}
}

func labelledPod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: labels}}
}

func TestLabelSelectorPredicate(t *testing.T) {
	web := map[string]string{"tier": "web"}
	db := map[string]string{"tier": "db"}
	tests := []struct {
		name     string
		sel      metav1.LabelSelector
		old, obj *corev1.Pod
		want     accepted
	}{
		{"selected object", metav1.LabelSelector{MatchLabels: web}, labelledPod(web), labelledPod(web), accepted{true, true, true, true}},
		{"object not selected", metav1.LabelSelector{MatchLabels: web}, labelledPod(db), labelledPod(db), accepted{false, false, false, true}},
		{"update into the selection", metav1.LabelSelector{MatchLabels: web}, labelledPod(db), labelledPod(web), accepted{true, true, true, true}},
		{"update out of the selection, so the controller can undo", metav1.LabelSelector{MatchLabels: web}, labelledPod(web), labelledPod(db), accepted{false, true, false, true}},
		{"empty selector selects all", metav1.LabelSelector{}, labelledPod(nil), labelledPod(nil), accepted{true, true, true, true}},
		{"expression", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "cache"}},
		}}, labelledPod(db), labelledPod(db), accepted{false, false, false, true}},
		{"no labels against a selector", metav1.LabelSelector{MatchLabels: web}, labelledPod(nil), labelledPod(nil), accepted{false, false, false, true}},
	}
	for _, tt := range tests {
		p, err := kube.LabelSelectorPredicate[*corev1.Pod](tt.sel)
		if err != nil {
			t.Fatalf("%s: LabelSelectorPredicate() = %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, accepts(p, tt.old, tt.obj)); diff != "" {
			t.Errorf("%s: accepted events mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestLabelSelectorPredicateInvalid(t *testing.T) {
	tests := []struct {
		name string
		sel  metav1.LabelSelector
	}{
		{"unknown operator", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near", Values: []string{"b"}}}}},
		{"In without values", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}}}},
		{"Exists with values", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists, Values: []string{"b"}}}}},
		{"invalid key", metav1.LabelSelector{MatchLabels: map[string]string{"a b": "c"}}},
		{"invalid value", metav1.LabelSelector{MatchLabels: map[string]string{"a": "-c-"}}},
	}
	for _, tt := range tests {
		p, err := kube.LabelSelectorPredicate[*corev1.Pod](tt.sel)
		if err == nil {
			t.Errorf("%s: LabelSelectorPredicate() = nil error, want one", tt.name)
			continue
		}
		obj := labelledPod(map[string]string{"a": "b"})
		if diff := cmp.Diff(accepted{}, accepts(p, obj, obj)); diff != "" {
			t.Errorf("%s: the Predicate returned with the error accepts events (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestBeingDeleted(t *testing.T) {
	live := labelledPod(nil)
	deleting := labelledPod(nil)
	deleting.DeletionTimestamp = &metav1.Time{}
	deleting.Finalizers = []string{"example.com/cleanup"}
	tests := []struct {
		name     string
		old, obj *corev1.Pod
		want     accepted
	}{
		{"live object", live, live, accepted{false, false, false, true}},
		{"object being deleted", live, deleting, accepted{true, true, true, true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, accepts(kube.BeingDeleted[*corev1.Pod](), tt.old, tt.obj)); diff != "" {
			t.Errorf("%s: accepted events mismatch (-want +got):\n%s", tt.name, diff)
		}
		not := controller.Not(kube.BeingDeleted[*corev1.Pod]())
		want := accepted{!tt.want.Create, !tt.want.Update, !tt.want.Delete, false}
		if diff := cmp.Diff(want, accepts(not, tt.old, tt.obj)); diff != "" {
			t.Errorf("%s: accepted events of Not(BeingDeleted) mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}
