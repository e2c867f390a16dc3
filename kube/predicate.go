package kube

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/typedcache/typedcache/controller"
)

// LabelSelectorPredicate returns a controller.Predicate that accepts the
// events of the objects whose labels sel selects: a creation whose object
// matches, an update whose old or new state matches, a deletion whose last
// state matches or is unknown. An empty selector selects every object. It
// returns an error, and a Predicate that accepts nothing, for a selector
// metav1.LabelSelectorAsSelector rejects (an unknown operator, an invalid
// key or value).
//
// Unlike controller-runtime's LabelSelectorPredicate, which looks at the
// new state only, an update that takes an object out of the selection is
// accepted, so that the controller hears of it and can undo what it did
// for the object.
func LabelSelectorPredicate[T metav1.Object](sel metav1.LabelSelector) (controller.Predicate[T], error) {
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		return controller.Or[T](), fmt.Errorf("kube: LabelSelectorPredicate: %w", err)
	}
	matching := controller.Matching(func(obj T) bool { return s.Matches(labels.Set(obj.GetLabels())) })
	return controller.Predicate[T]{
		Create: matching.Create,
		Update: func(old, new T) bool { return matching.Create(old) || matching.Create(new) },
		Delete: matching.Delete,
	}, nil
}

// BeingDeleted returns a controller.Predicate that accepts the events of
// the objects whose deletion has begun (DeletionTimestamp set, the object
// waiting for its finalizers): a creation of such an object, an update
// whose new state is one, a deletion whose last state is one or is
// unknown. controller.Not(BeingDeleted[T]()) drops the events of objects
// on their way out.
func BeingDeleted[T metav1.Object]() controller.Predicate[T] {
	return controller.Matching(func(obj T) bool { return obj.GetDeletionTimestamp() != nil })
}
