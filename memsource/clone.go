package memsource

// deepCopier is a type with a DeepCopy method returning its own type, as
// every Kubernetes API type (*corev1.Pod among them) has.
type deepCopier[T any] interface {
	DeepCopy() T
}

// cloneFunc returns the function the source copies objects with: opts.Clone
// if set; otherwise, unless opts.Shared is set, T's DeepCopy method if T
// has one; otherwise nil, and objects are shared.
func cloneFunc[T Object](opts Options[T]) func(T) T {
	if opts.Clone != nil {
		return opts.Clone
	}
	var zero T
	if _, ok := any(zero).(deepCopier[T]); !ok || opts.Shared {
		return nil
	}
	return func(obj T) T { return any(obj).(deepCopier[T]).DeepCopy() }
}
