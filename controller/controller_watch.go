package controller

import (
	"fmt"
	"reflect"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/queue"
)

// For makes inf the primary watch of c: every event of an object that
// passes preds queues the object's key, keys.Of(obj) (keys.Join of its
// namespace and name), and a deletion queues Deleted.Key, even when the
// object's last state is unknown. inf must use the default key function,
// so that both are its cache keys; the reconcile function then reads the
// object with inf.Cache().GetByKey(key), or splits the key with
// keys.Split.
//
// For fails with ErrNoPrimary if c already has a primary watch, with
// ErrStarted once Run has started, and as inf.AddEventHandler does.
func For[T keys.Object](c *Controller[string], inf *informer.Informer[T], preds ...Predicate[T]) error {
	if err := ForKey(c, inf, func(key string) (string, error) { return key, nil }, preds...); err != nil {
		return err
	}
	c.mu.Lock()
	if c.keyName == nil {
		c.keyName = func(key string) string { return key }
	}
	c.mu.Unlock()
	return nil
}

// ForKey is For for a controller whose keys are of another type than
// string: keyOf makes the controller's key from the cache key of the
// object, for every event, deletions of objects whose last state is
// unknown included. An error of keyOf is logged with the cache key, and
// nothing is queued. ForKey panics if keyOf is nil.
func ForKey[T keys.Object, K comparable](c *Controller[K], inf *informer.Informer[T], keyOf func(key string) (K, error), preds ...Predicate[T]) error {
	if keyOf == nil {
		panic("controller: ForKey called with a nil key function")
	}
	h := forHandler[T, K]{c: c, pred: And(preds...), keyOf: keyOf}
	p := &primary[K]{all: inf.Cache().Keys, keyOf: keyOf}
	return addWatch(c, inf, informer.HandlerFuncs[T]{AddFunc: h.OnAdd, UpdateFunc: h.OnUpdate, DeleteFunc: h.OnDelete}, p)
}

// Watches adds a secondary watch to c: every event of an object of inf
// that passes preds queues the keys mapFn returns for it, typically the
// key of the primary object that owns it. An update queues the keys of
// both states, so that a change of owner queues the old owner and the new
// one. A deletion queues the keys of the object's last state; one whose
// last state is unknown (Deleted.Object is the zero value) cannot be
// mapped and queues nothing.
//
// mapFn runs on the informer's handler goroutine for c, like any handler,
// and must not modify the object. Watches fails with ErrStarted once Run
// has started, and as inf.AddEventHandler does; it panics if mapFn is nil.
func Watches[T keys.Object, K comparable](c *Controller[K], inf *informer.Informer[T], mapFn func(obj T) []K, preds ...Predicate[T]) error {
	if mapFn == nil {
		panic("controller: Watches called with a nil map function")
	}
	h := watchHandler[T, K]{c: c, pred: And(preds...), mapFn: mapFn}
	return addWatch(c, inf, informer.HandlerFuncs[T]{AddFunc: h.OnAdd, UpdateFunc: h.OnUpdate, DeleteFunc: h.OnDelete}, nil)
}

// addWatch registers h on inf for c, as its primary watch described by p
// if p is not nil.
func addWatch[T keys.Object, K comparable](c *Controller[K], inf *informer.Informer[T], h informer.HandlerFuncs[T], p *primary[K]) error {
	if c.queue == nil {
		return errZero
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.started:
		return ErrStarted
	case p != nil && c.hasPrimary:
		return ErrNoPrimary
	}
	reg, err := inf.AddEventHandlerWithOptions(h, informer.HandlerOptions{Name: c.name})
	if err != nil {
		return fmt.Errorf("controller %s: watching %s: %w", c.name, inf.Name(), err)
	}
	if p != nil {
		c.hasPrimary, c.primary = true, *p
	}
	c.watches = append(c.watches, watch{
		reg: reg,
		remove: func() <-chan struct{} {
			// reg is inf's: removing it cannot fail.
			_ = inf.RemoveEventHandler(reg)
			return reg.Done()
		},
	})
	return nil
}

// priorityOf returns the priority of an add: low for an object of the
// initial list (or of the replay a handler added late receives).
func priorityOf(inInitialList bool) queue.Priority {
	if inInitialList {
		return queue.PriorityLow
	}
	return queue.PriorityNormal
}

// updatePriority returns the priority of an update: low for a resync,
// whose old and new states have the same non-empty resource version.
func updatePriority[T keys.Object](old, new T) queue.Priority {
	if rv := new.GetResourceVersion(); rv != "" && rv == old.GetResourceVersion() {
		return queue.PriorityLow
	}
	return queue.PriorityNormal
}

// forHandler queues the keys of a primary watch's objects.
type forHandler[T keys.Object, K comparable] struct {
	c     *Controller[K]
	pred  Predicate[T]
	keyOf func(key string) (K, error)
}

func (h forHandler[T, K]) OnAdd(obj T, inInitialList bool) {
	if h.pred.acceptCreate(obj) {
		h.addObject(obj, priorityOf(inInitialList))
	}
}

func (h forHandler[T, K]) OnUpdate(old, new T) {
	if h.pred.acceptUpdate(old, new) {
		h.addObject(new, updatePriority(old, new))
	}
}

func (h forHandler[T, K]) OnDelete(d informer.Deleted[T]) {
	if h.pred.acceptDelete(d) {
		h.add(d.Key, queue.PriorityNormal)
	}
}

func (h forHandler[T, K]) addObject(obj T, p queue.Priority) {
	key, err := keys.Of(obj)
	if err != nil {
		h.c.logger.Error("cannot key object", "error", err)
		return
	}
	h.add(key, p)
}

func (h forHandler[T, K]) add(key string, p queue.Priority) {
	k, err := h.keyOf(key)
	if err != nil {
		h.c.logger.Error("cannot make the controller's key", "key", key, "error", err)
		return
	}
	h.c.queue.AddWithOptions(k, queue.AddOptions{Priority: p})
}

// watchHandler queues the keys a secondary watch maps its objects to.
type watchHandler[T keys.Object, K comparable] struct {
	c     *Controller[K]
	pred  Predicate[T]
	mapFn func(obj T) []K
}

func (h watchHandler[T, K]) OnAdd(obj T, inInitialList bool) {
	if h.pred.acceptCreate(obj) {
		h.add(obj, priorityOf(inInitialList))
	}
}

func (h watchHandler[T, K]) OnUpdate(old, new T) {
	if h.pred.acceptUpdate(old, new) {
		p := updatePriority(old, new)
		h.add(old, p)
		h.add(new, p)
	}
}

func (h watchHandler[T, K]) OnDelete(d informer.Deleted[T]) {
	if !isZero(d.Object) && h.pred.acceptDelete(d) {
		h.add(d.Object, queue.PriorityNormal)
	}
}

func (h watchHandler[T, K]) add(obj T, p queue.Priority) {
	for _, k := range h.mapFn(obj) {
		h.c.queue.AddWithOptions(k, queue.AddOptions{Priority: p})
	}
}

// isZero reports whether v is its type's zero value: a deletion whose
// last state is unknown.
func isZero[T any](v T) bool { return reflect.ValueOf(&v).Elem().IsZero() }
