package kube

import (
	"reflect"
	"unsafe"
)

// A walk visits, in the value at p, every value its compiler's leaf
// function chose, with the state s of whoever walks.
type walk[S any] func(p unsafe.Pointer, s S)

// A walkCompiler compiles the walks of the types an object holds: it
// follows exported struct fields, pointers, slices and arrays down to the
// leaves, the types for which leaf returns a walk. It does not enter maps
// (their values cannot be addressed), unexported fields (they belong to
// their type's own methods: a Quantity's cached string, a Time's
// location) nor the time package's types.
type walkCompiler[S any] struct {
	leaf func(t reflect.Type) walk[S]
	// structs holds each struct type's walk, set once compiled; while it
	// is being compiled, a recursive use walks through the pointer.
	structs map[reflect.Type]*walk[S]
	done    map[reflect.Type]bool
}

// compileWalk returns the walk of t's leaves, or nil if t holds none. A
// struct type is compiled once, so the state leaf attaches to a field (a
// site) is shared wherever its struct appears.
func compileWalk[S any](t reflect.Type, leaf func(t reflect.Type) walk[S]) walk[S] {
	return newWalkCompiler(leaf).walk(t)
}

// newWalkCompiler returns a compiler of walks to leaf's leaves; the walks
// it compiles share their struct types' walks, and so their state.
func newWalkCompiler[S any](leaf func(t reflect.Type) walk[S]) *walkCompiler[S] {
	return &walkCompiler[S]{leaf: leaf, structs: map[reflect.Type]*walk[S]{}, done: map[reflect.Type]bool{}}
}

func (c *walkCompiler[S]) walk(t reflect.Type) walk[S] {
	if w := c.leaf(t); w != nil {
		return w
	}
	if t.PkgPath() == "time" {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.pointer(t)
	case reflect.Slice:
		return c.slice(t)
	case reflect.Array:
		elem := c.walk(t.Elem())
		if elem == nil || t.Len() == 0 {
			return nil
		}
		n, size := t.Len(), t.Elem().Size()
		return func(p unsafe.Pointer, s S) {
			for i := range n {
				elem(unsafe.Add(p, uintptr(i)*size), s)
			}
		}
	case reflect.Struct:
		if w, ok := c.structs[t]; ok {
			if c.done[t] {
				return *w
			}
			return func(p unsafe.Pointer, s S) {
				if *w != nil {
					(*w)(p, s)
				}
			}
		}
		w := new(walk[S])
		c.structs[t] = w
		*w = c.fields(t)
		c.done[t] = true
		return *w
	}
	return nil
}

func (c *walkCompiler[S]) pointer(t reflect.Type) walk[S] {
	elem := c.walk(t.Elem())
	if elem == nil {
		return nil
	}
	return func(p unsafe.Pointer, s S) {
		if q := *(*unsafe.Pointer)(p); q != nil {
			elem(q, s)
		}
	}
}

func (c *walkCompiler[S]) fields(t reflect.Type) walk[S] {
	type field struct {
		offset uintptr
		walk   walk[S]
	}
	var fields []field
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		if w := c.walk(f.Type); w != nil {
			fields = append(fields, field{f.Offset, w})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return func(p unsafe.Pointer, s S) {
		for _, f := range fields {
			f.walk(unsafe.Add(p, f.offset), s)
		}
	}
}

func (c *walkCompiler[S]) slice(t reflect.Type) walk[S] {
	if t.Elem().Kind() == reflect.Uint8 {
		return nil // bytes are data, not a list of values
	}
	elem := c.walk(t.Elem())
	if elem == nil {
		return nil
	}
	size := t.Elem().Size()
	return func(p unsafe.Pointer, s S) {
		b := *(*[]byte)(p) // only the header is read: data and length
		base := unsafe.Pointer(unsafe.SliceData(b))
		for i := range len(b) {
			elem(unsafe.Add(base, uintptr(i)*size), s)
		}
	}
}
