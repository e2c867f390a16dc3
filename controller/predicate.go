package controller

import (
	"maps"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
)

// Predicate filters the events of a watch before anything is queued: an
// event whose function returns false queues nothing. A nil function
// accepts every event of its kind, so the zero Predicate accepts all.
// The functions run on the informer's handler goroutine, like handlers,
// and must not modify the objects.
type Predicate[T any] struct {
	// Create filters the objects added to the cache, those of the initial
	// list included.
	Create func(obj T) bool
	// Update filters the updates, resyncs (old and new with the same
	// resource version) included.
	Update func(old, new T) bool
	// Delete filters the deletions. d.Object is the zero value when the
	// object's last state is unknown.
	Delete func(d informer.Deleted[T]) bool
}

func (p Predicate[T]) acceptCreate(obj T) bool { return p.Create == nil || p.Create(obj) }

func (p Predicate[T]) acceptUpdate(old, new T) bool { return p.Update == nil || p.Update(old, new) }

func (p Predicate[T]) acceptDelete(d informer.Deleted[T]) bool { return p.Delete == nil || p.Delete(d) }

// And returns a Predicate that accepts the events every one of ps
// accepts; with no ps it accepts all. It calls them in order and stops at
// the first that rejects.
func And[T any](ps ...Predicate[T]) Predicate[T] {
	switch len(ps) {
	case 0:
		return Predicate[T]{}
	case 1:
		return ps[0]
	}
	return Predicate[T]{
		Create: func(obj T) bool {
			for _, p := range ps {
				if !p.acceptCreate(obj) {
					return false
				}
			}
			return true
		},
		Update: func(old, new T) bool {
			for _, p := range ps {
				if !p.acceptUpdate(old, new) {
					return false
				}
			}
			return true
		},
		Delete: func(d informer.Deleted[T]) bool {
			for _, p := range ps {
				if !p.acceptDelete(d) {
					return false
				}
			}
			return true
		},
	}
}

// Or returns a Predicate that accepts the events at least one of ps
// accepts; with no ps it accepts none. It calls them in order and stops
// at the first that accepts.
func Or[T any](ps ...Predicate[T]) Predicate[T] {
	return Predicate[T]{
		Create: func(obj T) bool {
			for _, p := range ps {
				if p.acceptCreate(obj) {
					return true
				}
			}
			return false
		},
		Update: func(old, new T) bool {
			for _, p := range ps {
				if p.acceptUpdate(old, new) {
					return true
				}
			}
			return false
		},
		Delete: func(d informer.Deleted[T]) bool {
			for _, p := range ps {
				if p.acceptDelete(d) {
					return true
				}
			}
			return false
		},
	}
}

// Not returns a Predicate that accepts the events p rejects.
func Not[T any](p Predicate[T]) Predicate[T] {
	return Predicate[T]{
		Create: func(obj T) bool { return !p.acceptCreate(obj) },
		Update: func(old, new T) bool { return !p.acceptUpdate(old, new) },
		Delete: func(d informer.Deleted[T]) bool { return !p.acceptDelete(d) },
	}
}

// Matching returns a Predicate that accepts the events of the objects f
// accepts: the object of a creation, the new state of an update, the last
// state of a deletion. A deletion whose last state is unknown is accepted
// without calling f. controller-runtime's name is NewPredicateFuncs.
// Matching panics if f is nil.
func Matching[T any](f func(obj T) bool) Predicate[T] {
	if f == nil {
		panic("controller: Matching called with a nil function")
	}
	return Predicate[T]{
		Create: f,
		Update: func(_, new T) bool { return f(new) },
		Delete: func(d informer.Deleted[T]) bool { return isZero(d.Object) || f(d.Object) },
	}
}

// GenerationGetter is an object with a generation, which its source
// raises when its spec changes: every Kubernetes object, through its
// ObjectMeta.
type GenerationGetter interface {
	GetGeneration() int64
}

// LabelsGetter is an object with labels: every Kubernetes object, through
// its ObjectMeta.
type LabelsGetter interface {
	GetLabels() map[string]string
}

// AnnotationsGetter is an object with annotations: every Kubernetes
// object, through its ObjectMeta.
type AnnotationsGetter interface {
	GetAnnotations() map[string]string
}

// GenerationChanged returns a Predicate that accepts the updates that
// change the generation, and every creation and deletion. It drops
// resyncs and changes of status or metadata only. Updates of objects
// whose source keeps no generation (always 0) are all dropped.
func GenerationChanged[T GenerationGetter]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return old.GetGeneration() != new.GetGeneration() }}
}

// LabelsChanged returns a Predicate that accepts the updates that change
// the labels (a nil map equals an empty one), and every creation and
// deletion.
func LabelsChanged[T LabelsGetter]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return !maps.Equal(old.GetLabels(), new.GetLabels()) }}
}

// AnnotationsChanged returns a Predicate that accepts the updates that
// change the annotations (a nil map equals an empty one), and every
// creation and deletion.
func AnnotationsChanged[T AnnotationsGetter]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return !maps.Equal(old.GetAnnotations(), new.GetAnnotations()) }}
}

// ResourceVersionChanged returns a Predicate that accepts the updates
// whose resource version changed, dropping resyncs, and every creation
// and deletion.
func ResourceVersionChanged[T keys.Object]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return old.GetResourceVersion() != new.GetResourceVersion() }}
}
