package main

import "strconv"

// Meta is the identity and version every object of this example carries. Its
// methods make *Foo and *Bar satisfy keys.Object and memsource.Object, the
// way ObjectMeta does for Kubernetes types.
type Meta struct {
	Namespace       string
	Name            string
	ResourceVersion string
}

// GetNamespace returns the object's namespace.
func (m *Meta) GetNamespace() string { return m.Namespace }

// GetName returns the object's name.
func (m *Meta) GetName() string { return m.Name }

// GetResourceVersion returns the version the source stamped on the object.
func (m *Meta) GetResourceVersion() string { return m.ResourceVersion }

// SetResourceVersion records the version the source stamps on a write.
func (m *Meta) SetResourceVersion(v string) { m.ResourceVersion = v }

// Foo is the parent: it asks for Replicas children, each running Image.
type Foo struct {
	Meta
	Replicas int
	Image    string
}

// DeepCopy returns a copy of f that can be changed without touching f.
func (f *Foo) DeepCopy() *Foo {
	c := *f
	return &c
}

// Bar is a child owned by the Foo named Owner in the same namespace. The
// controller names the i-th child of Foo "x" "x-i".
type Bar struct {
	Meta
	Owner string
	Image string
}

// DeepCopy returns a copy of b that can be changed without touching b.
func (b *Bar) DeepCopy() *Bar {
	c := *b
	return &c
}

// FooKey is what the work queue holds: the identity of a Foo to reconcile.
// It is a plain comparable struct, so the queue needs no string parsing.
type FooKey struct {
	Namespace, Name string
}

// String returns the key in the familiar namespace/name form.
func (k FooKey) String() string { return k.Namespace + "/" + k.Name }

// childName returns the name of the i-th child of the Foo named owner.
func childName(owner string, i int) string { return owner + "-" + strconv.Itoa(i) }
