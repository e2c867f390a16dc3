package kube

import (
	"context"
	"fmt"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/reflector"
)

// watcher adapts a client-go watch.Interface to a reflector.Watch[T]. It has
// no goroutine of its own: Next receives the client's next event on the
// caller's goroutine and converts it, so an event reaches the reflector
// straight from the goroutine that decoded it.
type watcher[T Object] struct {
	w    watch.Interface
	ch   <-chan watch.Event
	name string // the resource, for errors
	// dropManaged clears the managedFields of every object.
	dropManaged bool
	// share, if set, shares the maps of every object: the watch is
	// ReadOnly and the source shares maps.
	share func(T) T
	// unhook cancels the stop of w when the watch's context ends.
	unhook func() bool
	once   sync.Once // stops w once
	// end, once set, is what every later Next returns: io.EOF, or the
	// failure that ended the stream. Only Next's goroutine touches it.
	end error
}

// newWatcher adapts w, which ends when ctx does: a client honours the
// context of its request, and a fake client's watch is stopped then.
func newWatcher[T Object](ctx context.Context, w watch.Interface, name string, dropManaged bool) *watcher[T] {
	x := &watcher[T]{w: w, ch: w.ResultChan(), name: name, dropManaged: dropManaged}
	x.unhook = context.AfterFunc(ctx, x.stopClient)
	return x
}

// Next returns the client's next event, converted. A watch.Error event, an
// object that is not a T and an unknown event type end the stream with an
// error; the client closing its channel ends it with io.EOF.
func (x *watcher[T]) Next(ctx context.Context) (reflector.Event[T], error) {
	if x.end != nil {
		return reflector.Event[T]{}, x.end
	}
	var e watch.Event
	var ok bool
	select {
	case e, ok = <-x.ch: // the common case under load: an event is ready
	default:
		select {
		case e, ok = <-x.ch:
		case <-ctx.Done():
			return reflector.Event[T]{}, ctx.Err()
		}
	}
	if !ok {
		return x.finish(io.EOF)
	}
	ev, err := convert[T](e, x.name)
	if err != nil {
		return x.finish(err)
	}
	if ev.Type != reflector.Bookmark {
		if x.dropManaged {
			ev.Object.SetManagedFields(nil)
		}
		if x.share != nil {
			ev.Object = x.share(ev.Object)
		}
	}
	return ev, nil
}

// finish ends the stream with err and stops the client's watch.
func (x *watcher[T]) finish(err error) (reflector.Event[T], error) {
	x.end = err
	x.Stop()
	return reflector.Event[T]{}, err
}

// Stop stops the client's watch, which closes its channel: a Next waiting
// meanwhile returns io.EOF. It is idempotent and safe from any goroutine.
func (x *watcher[T]) Stop() {
	x.unhook()
	x.stopClient()
}

// stopClient stops the client's watch, once: not every watch.Interface
// tolerates a second Stop.
func (x *watcher[T]) stopClient() { x.once.Do(x.w.Stop) }

// convert turns a client-go event into ours. Error events, objects that
// are not of type T and event types it does not know are errors.
func convert[T Object](e watch.Event, name string) (reflector.Event[T], error) {
	switch e.Type {
	case watch.Bookmark:
		return bookmark[T](e.Object, name)
	case watch.Error:
		return reflector.Event[T]{}, watchError(name, e.Object)
	}
	t, err := objectEventType(e.Type, name)
	if err != nil {
		return reflector.Event[T]{}, err
	}
	obj, ok := e.Object.(T)
	if !ok {
		return reflector.Event[T]{}, fmt.Errorf("kube: watch %s: %w: %T", name, ErrUnexpectedObject, e.Object)
	}
	return reflector.Event[T]{Type: t, Object: obj}, nil
}

// objectEventType returns our type of a watch event that carries an
// object: added, modified or deleted. Any other type is an error.
func objectEventType(t watch.EventType, name string) (reflector.EventType, error) {
	switch t {
	case watch.Added:
		return reflector.Added, nil
	case watch.Modified:
		return reflector.Updated, nil
	case watch.Deleted:
		return reflector.Deleted, nil
	}
	return 0, fmt.Errorf("kube: watch %s: unknown event type %q", name, t)
}

// bookmark turns the object of a bookmark event into our bookmark: its
// resource version, and whether it ends the initial events of a streaming
// list.
func bookmark[T Object](obj runtime.Object, name string) (reflector.Event[T], error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return reflector.Event[T]{}, fmt.Errorf("kube: watch %s: bookmark: %w: %v", name, ErrUnexpectedObject, err)
	}
	return reflector.Event[T]{
		Type:             reflector.Bookmark,
		ResourceVersion:  m.GetResourceVersion(),
		InitialEventsEnd: m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true",
	}, nil
}
