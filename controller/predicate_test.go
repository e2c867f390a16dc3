package controller_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
)

// verdicts is what a Predicate decides for the events of eventsOf.
type verdicts struct{ Create, Update, Delete, DeleteUnknown bool }

// judge applies p to a creation of obj, an update from old to obj, a
// deletion of obj and a deletion whose last state is unknown; a nil
// function accepts, as in a watch.
func judge(p controller.Predicate[*Foo], old, obj *Foo) verdicts {
	accept := func(f func() bool, set bool) bool { return !set || f() }
	return verdicts{
		Create: accept(func() bool { return p.Create(obj) }, p.Create != nil),
		Update: accept(func() bool { return p.Update(old, obj) }, p.Update != nil),
		Delete: accept(func() bool { return p.Delete(informer.Deleted[*Foo]{Key: "ns/a", Object: obj}) }, p.Delete != nil),
		DeleteUnknown: accept(func() bool {
			return p.Delete(informer.Deleted[*Foo]{Key: "ns/a", Inferred: true})
		}, p.Delete != nil),
	}
}

func TestPredicates(t *testing.T) {
	base := &Foo{Namespace: "ns", Name: "a", RV: "2", Generation: 1,
		Labels: map[string]string{"l": "1"}, Annotations: map[string]string{"a": "1"}}
	with := func(change func(f *Foo)) *Foo { f := base.DeepCopy(); change(f); return f }
	newGen := with(func(f *Foo) { f.RV = "3"; f.Generation = 2 })
	newLabels := with(func(f *Foo) { f.RV = "3"; f.Labels = map[string]string{"l": "2"} })
	newAnnotations := with(func(f *Foo) { f.RV = "3"; f.Annotations = nil })
	named := func(name string) controller.Predicate[*Foo] {
		return controller.Matching(func(f *Foo) bool { return f.Name == name })
	}
	all := verdicts{true, true, true, true}

	tests := []struct {
		name string
		p    controller.Predicate[*Foo]
		new  *Foo
		want verdicts
	}{
		{"zero accepts all", controller.Predicate[*Foo]{}, base, all},
		{"generation changed", controller.GenerationChanged[*Foo](), newGen, all},
		{"generation same", controller.GenerationChanged[*Foo](), newLabels, verdicts{true, false, true, true}},
		{"labels changed", controller.LabelsChanged[*Foo](), newLabels, all},
		{"labels same", controller.LabelsChanged[*Foo](), newGen, verdicts{true, false, true, true}},
		{"annotations changed to nil", controller.AnnotationsChanged[*Foo](), newAnnotations, all},
		{"annotations same", controller.AnnotationsChanged[*Foo](), newGen, verdicts{true, false, true, true}},
		{"resource version changed", controller.ResourceVersionChanged[*Foo](), newGen, all},
		{"resync", controller.ResourceVersionChanged[*Foo](), base, verdicts{true, false, true, true}},
		// A deletion with no known state cannot be matched: accepted.
		{"matching rejects", named("b"), base, verdicts{false, false, false, true}},
		{"matching accepts", named("a"), base, all},
		{"and of none accepts", controller.And[*Foo](), base, all},
		{"and", controller.And(named("a"), controller.GenerationChanged[*Foo]()), base, verdicts{true, false, true, true}},
		{"and rejects", controller.And(named("b"), controller.GenerationChanged[*Foo]()), newGen, verdicts{false, false, false, true}},
		{"or of none rejects", controller.Or[*Foo](), base, verdicts{}},
		// GenerationChanged accepts creations and deletions.
		{"or", controller.Or(named("b"), controller.GenerationChanged[*Foo]()), base, verdicts{true, false, true, true}},
		{"or accepts", controller.Or(named("b"), controller.LabelsChanged[*Foo]()), newLabels, all},
		{"not", controller.Not(controller.GenerationChanged[*Foo]()), newGen, verdicts{false, false, false, false}},
		{"not of zero rejects", controller.Not(controller.Predicate[*Foo]{}), base, verdicts{}},
		{"not not", controller.Not(controller.Not(named("b"))), base, verdicts{false, false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, judge(tt.p, base, tt.new)); diff != "" {
				t.Errorf("verdicts mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
