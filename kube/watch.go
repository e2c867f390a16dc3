package kube

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/reflector"
)

// watcher adapts a client-go watch.Interface to a reflector.Watch[T]. One
// goroutine, started by startWatch, reads the client's events, converts
// them and forwards them; it exits, stopping the client's watch and closing
// events, when the client's stream ends, after an Error event, on Stop, or
// when the watch's context ends.
type watcher[T Object] struct {
	events chan reflector.Event[T]
	stop   chan struct{} // closed by Stop
	once   sync.Once
}

func startWatch[T Object](ctx context.Context, w watch.Interface, name string) *watcher[T] {
	x := &watcher[T]{events: make(chan reflector.Event[T]), stop: make(chan struct{})}
	go x.forward(ctx, w, name)
	return x
}

// Events returns the channel of converted events; it is closed when the
// watch ends.
func (x *watcher[T]) Events() <-chan reflector.Event[T] { return x.events }

// Stop ends the watch. It is idempotent and safe to call from any
// goroutine.
func (x *watcher[T]) Stop() { x.once.Do(func() { close(x.stop) }) }

func (x *watcher[T]) forward(ctx context.Context, w watch.Interface, name string) {
	defer close(x.events)
	defer w.Stop()
	for {
		var e watch.Event
		var ok bool
		select {
		case e, ok = <-w.ResultChan():
			if !ok {
				return
			}
		case <-x.stop:
			return
		case <-ctx.Done():
			return
		}
		ev := convert[T](e, name)
		select {
		case x.events <- ev:
		case <-x.stop:
			return
		case <-ctx.Done():
			return
		}
		if ev.Type == reflector.Error {
			return
		}
	}
}

// convert turns a client-go event into ours. Objects that are not of type
// T, and event types it does not know, become Error events.
func convert[T Object](e watch.Event, name string) reflector.Event[T] {
	var t reflector.EventType
	switch e.Type {
	case watch.Added:
		t = reflector.Added
	case watch.Modified:
		t = reflector.Modified
	case watch.Deleted:
		t = reflector.Deleted
	case watch.Bookmark:
		m, err := meta.Accessor(e.Object)
		if err != nil {
			return errorEvent[T](fmt.Errorf("kube: watch %s: bookmark: %w: %v", name, ErrUnexpectedObject, err))
		}
		return reflector.Event[T]{
			Type:             reflector.Bookmark,
			ResourceVersion:  m.GetResourceVersion(),
			InitialEventsEnd: m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true",
		}
	case watch.Error:
		return errorEvent[T](watchError(name, e.Object))
	default:
		return errorEvent[T](fmt.Errorf("kube: watch %s: unknown event type %q", name, e.Type))
	}
	obj, ok := e.Object.(T)
	if !ok {
		return errorEvent[T](fmt.Errorf("kube: watch %s: %w: %T", name, ErrUnexpectedObject, e.Object))
	}
	return reflector.Event[T]{Type: t, Object: obj}
}

func errorEvent[T Object](err error) reflector.Event[T] {
	return reflector.Event[T]{Type: reflector.Error, Err: err}
}
