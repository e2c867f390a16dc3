package kube_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// collect sends events through a watch of a fake client and returns what
// the source's watch delivered until it ended, and the error that ended it
// (nil for io.EOF).
func collect(t *testing.T, events ...watch.Event) ([]reflector.Event[*corev1.Pod], error) {
	t.Helper()
	fw := watch.NewFakeWithChanSize(len(events), false)
	for _, e := range events {
		fw.Action(e.Type, e.Object)
	}
	fw.Stop() // the server ends the stream after these events
	lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{watcher: fw})
	w, err := lw.Watch(context.Background(), reflector.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	var got []reflector.Event[*corev1.Pod]
	for {
		e, err := w.Next(context.Background())
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, e)
	}
}

func bookmark(rv string, initialEventsEnd bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if initialEventsEnd {
		p.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return p
}

func TestWatchEvents(t *testing.T) {
	a, b := pod("a", "2"), pod("b", "3")
	got, err := collect(t,
		watch.Event{Type: watch.Added, Object: &a},
		watch.Event{Type: watch.Bookmark, Object: bookmark("2", true)},
		watch.Event{Type: watch.Modified, Object: &b},
		watch.Event{Type: watch.Bookmark, Object: bookmark("4", false)},
		watch.Event{Type: watch.Deleted, Object: &a},
	)
	want := []reflector.Event[*corev1.Pod]{
		{Type: reflector.Added, Object: &a},
		{Type: reflector.Bookmark, ResourceVersion: "2", InitialEventsEnd: true},
		{Type: reflector.Updated, Object: &b},
		{Type: reflector.Bookmark, ResourceVersion: "4"},
		{Type: reflector.Deleted, Object: &a},
	}
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("watch events mismatch (-want +got):\n%s\nended with %v, want io.EOF", diff, err)
	}
	if got[0].Object != &a {
		t.Error("Added event's object is a copy, want the decoded object itself")
	}
}

func TestWatchErrorEvents(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "wrong"}}
	tests := []struct {
		name    string
		event   watch.Event
		expired bool
		is      func(error) bool
	}{
		{
			name:    "410 status",
			event:   watch.Event{Type: watch.Error, Object: &apierrors.NewResourceExpired("too old resource version: 1 (5)").ErrStatus},
			expired: true,
			is:      apierrors.IsResourceExpired,
		},
		{
			name:  "500 status",
			event: watch.Event{Type: watch.Error, Object: &apierrors.NewInternalError(errors.New("etcd")).ErrStatus},
			is:    apierrors.IsInternalError,
		},
		{
			name:  "object of another type",
			event: watch.Event{Type: watch.Added, Object: cm},
			is:    func(err error) bool { return errors.Is(err, kube.ErrUnexpectedObject) },
		},
		{
			name:  "status instead of an object",
			event: watch.Event{Type: watch.Modified, Object: &metav1.Status{}},
			is:    func(err error) bool { return errors.Is(err, kube.ErrUnexpectedObject) },
		},
		{
			name:  "bookmark without metadata",
			event: watch.Event{Type: watch.Bookmark, Object: &metav1.Status{}},
			is:    func(err error) bool { return errors.Is(err, kube.ErrUnexpectedObject) },
		},
		{
			name:  "unknown event type",
			event: watch.Event{Type: "SURPRISE", Object: &corev1.Pod{}},
			is:    func(err error) bool { return err != nil },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := pod("after", "9")
			// The failure ends the watch: the Added after it is never delivered.
			got, err := collect(t, tt.event, watch.Event{Type: watch.Added, Object: &after})
			if len(got) != 0 || err == nil {
				t.Fatalf("events = %+v, ended with %v; want no event and an error", got, err)
			}
			if errors.Is(err, reflector.ErrExpired) != tt.expired {
				t.Errorf("error %v: errors.Is(ErrExpired) = %v, want %v", err, !tt.expired, tt.expired)
			}
			if !tt.is(err) {
				t.Errorf("error %v does not match its cause", err)
			}
		})
	}
}

// stoppable is a watch.Interface whose stream never ends by itself and that
// records Stop.
type stoppable struct {
	ch      chan watch.Event
	stopped chan struct{}
}

func newStoppable() *stoppable {
	return &stoppable{ch: make(chan watch.Event), stopped: make(chan struct{})}
}

func (s *stoppable) ResultChan() <-chan watch.Event { return s.ch }
func (s *stoppable) Stop()                          { close(s.stopped) }

func TestWatchEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(cancel context.CancelFunc, w reflector.Watch[*corev1.Pod])
	}{
		{name: "Stop", end: func(_ context.CancelFunc, w reflector.Watch[*corev1.Pod]) { w.Stop(); w.Stop() }},
		{name: "context", end: func(cancel context.CancelFunc, _ reflector.Watch[*corev1.Pod]) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStoppable()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{watcher: s})
			w, err := lw.Watch(ctx, reflector.WatchOptions{ResourceVersion: "1"})
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			tt.end(cancel, w)
			<-s.stopped // the client's watch was stopped
		})
	}
}
