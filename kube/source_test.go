package kube_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

func pod(name, rv string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func TestListOptions(t *testing.T) {
	tests := []struct {
		name string
		opts kube.Options
		in   reflector.ListOptions
		want metav1.ListOptions
	}{
		{name: "latest", want: metav1.ListOptions{}},
		{
			name: "any version from the cache",
			in:   reflector.ListOptions{ResourceVersion: "0", Limit: 500},
			want: metav1.ListOptions{ResourceVersion: "0", Limit: 500},
		},
		{
			name: "not older than a version, paginated",
			in:   reflector.ListOptions{ResourceVersion: "42", Limit: 500},
			want: metav1.ListOptions{ResourceVersion: "42", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 500},
		},
		{
			name: "continue token carries its own version",
			in:   reflector.ListOptions{ResourceVersion: "42", Limit: 500, Continue: "token"},
			want: metav1.ListOptions{Limit: 500, Continue: "token"},
		},
		{
			name: "selectors",
			opts: kube.Options{LabelSelector: "app=web", FieldSelector: "metadata.name=a"},
			in:   reflector.ListOptions{ResourceVersion: "7"},
			want: metav1.ListOptions{LabelSelector: "app=web", FieldSelector: "metadata.name=a", ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeClient[*corev1.PodList]{list: &corev1.PodList{}}
			lw := kube.SourceWithOptions[*corev1.Pod](c, tt.opts)
			if _, err := lw.List(context.Background(), tt.in); err != nil {
				t.Fatalf("List(%+v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, c.lastRequest()); diff != "" {
				t.Errorf("List(%+v) request mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestListItemsAreMovedOutOfTheList(t *testing.T) {
	list := &corev1.PodList{
		ListMeta: metav1.ListMeta{ResourceVersion: "10", Continue: "next"},
		Items:    []corev1.Pod{pod("a", "3"), pod("b", "9")},
	}
	list.Items[0].Labels = map[string]string{"app": "web"}
	lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{list: list})
	got, err := lw.List(context.Background(), reflector.ListOptions{Limit: 2})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := reflector.ListResult[*corev1.Pod]{
		Items:           []*corev1.Pod{&list.Items[0], &list.Items[1]},
		ResourceVersion: "10",
		Continue:        "next",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List() mismatch (-want +got):\n%s", diff)
	}
	for i, p := range got.Items {
		if p == &list.Items[i] {
			t.Errorf("List().Items[%d] points into the list's array, want its own allocation", i)
		}
	}
	// The copy is shallow: maps are shared, not duplicated.
	got.Items[0].Labels["shared"] = "yes"
	if list.Items[0].Labels["shared"] != "yes" {
		t.Error("List().Items[0].Labels is a deep copy, want the decoded map")
	}
}

func TestListDynamicAndMetadataClients(t *testing.T) {
	u := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{{}}}
	u.Items[0].SetName("u")
	u.SetResourceVersion("5")
	ulw := kube.Source[*unstructured.Unstructured](&fakeClient[*unstructured.UnstructuredList]{list: u})
	ugot, err := ulw.List(context.Background(), reflector.ListOptions{})
	if err != nil || len(ugot.Items) != 1 || ugot.Items[0].GetName() != "u" || ugot.ResourceVersion != "5" {
		t.Errorf("List(unstructured) = %+v, %v; want the list's one item and version 5", ugot, err)
	}

	m := &metav1.PartialObjectMetadataList{
		ListMeta: metav1.ListMeta{ResourceVersion: "6"},
		Items:    []metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "m"}}},
	}
	mlw := kube.Source[*metav1.PartialObjectMetadata](&fakeClient[*metav1.PartialObjectMetadataList]{list: m})
	mgot, err := mlw.List(context.Background(), reflector.ListOptions{})
	if err != nil || len(mgot.Items) != 1 || mgot.Items[0].Name != "m" || mgot.ResourceVersion != "6" {
		t.Errorf("List(metadata) = %+v, %v; want the list's one item and version 6", mgot, err)
	}
}

func TestListNilListIsAnError(t *testing.T) {
	lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{})
	if _, err := lw.List(context.Background(), reflector.ListOptions{}); err == nil {
		t.Error("List() of a client returning (nil, nil) succeeded, want an error")
	}
}

func TestSourcePanicsOnMismatchedListType(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Source[*corev1.Pod](ConfigMap client) did not panic")
		}
	}()
	kube.Source[*corev1.Pod](&fakeClient[*corev1.ConfigMapList]{})
}

// gvr is a resource for error constructors.
var gvr = schema.GroupResource{Resource: "pods"}

func tooLarge() error {
	err := apierrors.NewTimeoutError("Too large resource version", 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		expired bool
		is      func(error) bool // the client-go predicate that must still hold
	}{
		{name: "410 expired", err: apierrors.NewResourceExpired("too old resource version: 1 (42)"), expired: true, is: apierrors.IsResourceExpired},
		{name: "410 gone, servers before 1.18", err: &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonGone}}, expired: true, is: apierrors.IsGone},
		{name: "resource version too large", err: tooLarge(), expired: true, is: apierrors.IsTimeout},
		{name: "429", err: apierrors.NewTooManyRequests("slow down", 1), is: apierrors.IsTooManyRequests},
		{name: "500", err: apierrors.NewInternalError(errors.New("boom")), is: apierrors.IsInternalError},
		{name: "503", err: apierrors.NewServiceUnavailable("starting"), is: apierrors.IsServiceUnavailable},
		{name: "plain timeout", err: apierrors.NewTimeoutError("slow", 1), is: apierrors.IsTimeout},
		{name: "not found", err: apierrors.NewNotFound(gvr, "x"), is: apierrors.IsNotFound},
		{
			name: "connection refused",
			err:  fmt.Errorf("dial tcp 127.0.0.1:6443: %w", syscall.ECONNREFUSED),
			is:   func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := kube.Source[*corev1.Pod](&fakeClient[*corev1.PodList]{listErr: tt.err, watchErr: tt.err})
			_, lerr := lw.List(context.Background(), reflector.ListOptions{})
			_, werr := lw.Watch(context.Background(), reflector.WatchOptions{})
			for op, err := range map[string]error{"List": lerr, "Watch": werr} {
				if got := errors.Is(err, reflector.ErrExpired); got != tt.expired {
					t.Errorf("%s() error %v: errors.Is(ErrExpired) = %v, want %v", op, err, got, tt.expired)
				}
				if !tt.is(err) {
					t.Errorf("%s() error %v lost its client-go cause %v", op, err, tt.err)
				}
			}
		})
	}
}

func TestWatchOptions(t *testing.T) {
	tests := []struct {
		name string
		opts kube.Options
		in   reflector.WatchOptions
		want metav1.ListOptions
	}{
		{
			name: "from a version with bookmarks",
			in:   reflector.WatchOptions{ResourceVersion: "42", AllowBookmarks: true, Timeout: 5 * time.Minute},
			want: metav1.ListOptions{ResourceVersion: "42", AllowWatchBookmarks: true, TimeoutSeconds: new(int64(300))},
		},
		{
			name: "timeout rounded up to whole seconds",
			in:   reflector.WatchOptions{ResourceVersion: "42", Timeout: 1500 * time.Millisecond},
			want: metav1.ListOptions{ResourceVersion: "42", TimeoutSeconds: new(int64(2))},
		},
		{
			name: "streaming list forces bookmarks",
			in:   reflector.WatchOptions{SendInitialEvents: true},
			want: metav1.ListOptions{
				SendInitialEvents:    new(true),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
				AllowWatchBookmarks:  true,
			},
		},
		{
			name: "selectors",
			opts: kube.Options{LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1"},
			in:   reflector.WatchOptions{ResourceVersion: "1"},
			want: metav1.ListOptions{LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1", ResourceVersion: "1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeClient[*corev1.PodList]{watcher: watch.NewFake()}
			w, err := kube.SourceWithOptions[*corev1.Pod](c, tt.opts).Watch(context.Background(), tt.in)
			if err != nil {
				t.Fatalf("Watch(%+v): %v", tt.in, err)
			}
			w.Stop()
			if diff := cmp.Diff(tt.want, c.lastRequest()); diff != "" {
				t.Errorf("Watch(%+v) request mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCapabilities(t *testing.T) {
	for _, disable := range []bool{false, true} {
		lw := kube.SourceWithOptions[*corev1.Pod](&fakeClient[*corev1.PodList]{}, kube.Options{DisableStreamingList: disable})
		// KUBE_FEATURE_WatchListClient=false in the environment turns streaming off too.
		gate := clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
		want := reflector.Capabilities{Pagination: true, Bookmarks: true, StreamingList: !disable && gate}
		if diff := cmp.Diff(want, lw.Capabilities()); diff != "" {
			t.Errorf("Capabilities() with DisableStreamingList=%v mismatch (-want +got):\n%s", disable, diff)
		}
	}
}

// TestDropManagedFields checks that Options.DropManagedFields clears the
// managedFields of listed and watched objects, and only with it.
func TestDropManagedFields(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}
	withManaged := func(name string) corev1.Pod {
		p := pod(name, "1")
		p.ManagedFields = managed
		return p
	}
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("drop=%v", drop), func(t *testing.T) {
			w := watch.NewFake()
			defer w.Stop()
			c := &fakeClient[*corev1.PodList]{list: &corev1.PodList{Items: []corev1.Pod{withManaged("listed")}}, watcher: w}
			lw := kube.SourceWithOptions[*corev1.Pod](c, kube.Options{DropManagedFields: drop})
			list, err := lw.List(context.Background(), reflector.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			stream, err := lw.Watch(context.Background(), reflector.WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Stop()
			watched := withManaged("watched")
			go w.Modify(&watched)
			ev, err := stream.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var want []metav1.ManagedFieldsEntry
			if !drop {
				want = managed
			}
			for _, p := range []*corev1.Pod{list.Items[0], ev.Object} {
				if diff := cmp.Diff(want, p.ManagedFields); diff != "" {
					t.Errorf("%s: managedFields mismatch (-want +got):\n%s", p.Name, diff)
				}
			}
		})
	}
}
