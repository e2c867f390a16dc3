package reflector

import "github.com/typedcache/typedcache/keys"

// objectVersion checks that obj can be stored and returns its resource
// version. An object is storable when its methods answer and its name is
// not empty: a nil pointer of a Kubernetes type panics in GetName, a nil
// pointer of a type with nil-safe methods has no name, and a nil interface
// panics. The recover makes all of these an error instead of a crash, and
// costs a few nanoseconds per object.
func objectVersion[T keys.Object](obj T) (rv string, err error) {
	defer func() {
		if recover() != nil {
			rv, err = "", errNilObject
		}
	}()
	if obj.GetName() == "" {
		return "", errNoName
	}
	_ = obj.GetNamespace()
	return obj.GetResourceVersion(), nil
}

// objectKey identifies an object within a streaming list.
type objectKey struct{ namespace, name string }

// keyOf returns obj's key; obj has passed objectVersion.
func keyOf[T keys.Object](obj T) objectKey {
	return objectKey{obj.GetNamespace(), obj.GetName()}
}

// collector accumulates the objects of a streaming initial list. Added
// events append; the rare Updated or Deleted before the end of the initial
// events builds an index once and edits in place.
type collector[T keys.Object] struct {
	items []T
	index map[objectKey]int // nil until the first Updated or Deleted
}

// add records an Added event.
func (c *collector[T]) add(obj T) {
	if c.index == nil {
		c.items = append(c.items, obj)
		return
	}
	c.upsert(obj)
}

// update records a Updated event.
func (c *collector[T]) update(obj T) {
	if c.index == nil {
		c.buildIndex()
	}
	c.upsert(obj)
}

// upsert adds or replaces obj; the index exists.
func (c *collector[T]) upsert(obj T) {
	k := keyOf(obj)
	if i, ok := c.index[k]; ok {
		c.items[i] = obj
		return
	}
	c.index[k] = len(c.items)
	c.items = append(c.items, obj)
}

// remove deletes the object with obj's key, if present.
func (c *collector[T]) remove(obj T) {
	if c.index == nil {
		c.buildIndex()
	}
	k := keyOf(obj)
	i, ok := c.index[k]
	if !ok {
		return
	}
	last := len(c.items) - 1
	if i != last {
		c.items[i] = c.items[last]
		c.index[keyOf(c.items[i])] = i
	}
	var zero T
	c.items[last] = zero
	c.items = c.items[:last]
	delete(c.index, k)
}

// buildIndex indexes the items collected so far; a later duplicate key
// wins, as it would in the store.
func (c *collector[T]) buildIndex() {
	c.index = make(map[objectKey]int, len(c.items))
	n := 0
	for _, obj := range c.items {
		k := keyOf(obj)
		if i, ok := c.index[k]; ok {
			c.items[i] = obj
			continue
		}
		c.index[k] = n
		c.items[n] = obj
		n++
	}
	clear(c.items[n:])
	c.items = c.items[:n]
}
