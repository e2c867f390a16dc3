package keys

// Object is what the cache needs to know about a stored value: where it
// lives and which version of it this is. Every Kubernetes API type (for
// example *corev1.Pod) satisfies it through its embedded ObjectMeta, so the
// core never imports k8s.io.
//
// Packages that need only keys (indexer, deltafifo) accept any T together
// with a Func; packages that compare versions (reflector, informer) ask
// for Object.
type Object interface {
	GetNamespace() string
	GetName() string
	GetResourceVersion() string
}

// Func computes the key under which obj is stored. It must be
// deterministic: the same object always yields the same key. A Func that
// fails makes the operation that called it return the error and change
// nothing.
type Func[T any] func(obj T) (string, error)
