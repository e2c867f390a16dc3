package integration

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// TestSourceAgainstServer checks the adapter's mapping of each reflector
// request onto the real API: pagination, selectors, expiry, streaming
// lists, and the dynamic and metadata clients.
func TestSourceAgainstServer(t *testing.T) {
	c := newCluster(t)
	ns := c.namespace(t)
	cs := c.client(t, nil)
	createN(t, cs, ns, 0, 250)
	ctx := context.Background()
	names := func(items []*corev1.ConfigMap) []string {
		var s []string
		for _, cm := range items {
			s = append(s, cm.Name)
		}
		return s
	}
	wantAll := names(func() []*corev1.ConfigMap {
		var all []*corev1.ConfigMap
		for i := range 250 {
			all = append(all, configMap(ns, i))
		}
		return all
	}())
	lw := kube.Source[*corev1.ConfigMap](cs.CoreV1().ConfigMaps(ns))

	t.Run("pagination", func(t *testing.T) {
		var got []string
		opts := reflector.ListOptions{ResourceVersion: "0", Limit: 100}
		pages := 0
		for {
			page, err := lw.List(ctx, opts)
			if err != nil {
				t.Fatalf("List(%+v): %v", opts, err)
			}
			pages++
			got = append(got, names(page.Items)...)
			if page.Continue == "" {
				break
			}
			opts = reflector.ListOptions{Limit: 100, Continue: page.Continue}
		}
		if diff := cmp.Diff(wantAll, got); diff != "" {
			t.Errorf("paginated List mismatch (-want +got):\n%s", diff)
		}
		// RV "0" may be served from the watch cache, which ignores limits.
		if pages != 3 && pages != 1 {
			t.Errorf("%d pages of at most 100 for 250 objects, want 3 (or 1 from the watch cache)", pages)
		}
	})

	t.Run("pagination at the latest version", func(t *testing.T) {
		first, err := lw.List(ctx, reflector.ListOptions{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Items) != 100 || first.Continue == "" || first.ResourceVersion == "" {
			t.Errorf("first page: %d items, continue %q, version %q; want 100, a token, a version", len(first.Items), first.Continue, first.ResourceVersion)
		}
		// A page asked for at a version not older than the first page's.
		again, err := lw.List(ctx, reflector.ListOptions{ResourceVersion: first.ResourceVersion, Limit: 100})
		if err != nil || len(again.Items) != 100 {
			t.Errorf("List at version %s with limit: %d items, %v; want 100, nil", first.ResourceVersion, len(again.Items), err)
		}
	})

	t.Run("selectors", func(t *testing.T) {
		sel := kube.SourceWithOptions[*corev1.ConfigMap](cs.CoreV1().ConfigMaps(ns), kube.Options{LabelSelector: "group=3", FieldSelector: "metadata.name!=cm-00003"})
		res, err := sel.List(ctx, reflector.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 13; i < 250; i += 10 {
			want = append(want, configMap(ns, i).Name)
		}
		if diff := cmp.Diff(want, names(res.Items)); diff != "" {
			t.Errorf("List with selectors mismatch (-want +got):\n%s", diff)
		}
		w, err := sel.Watch(ctx, reflector.WatchOptions{ResourceVersion: res.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		for _, i := range []int{4, 3, 23} { // only cm-00023 matches both selectors
			cm := configMap(ns, i)
			cm.Data["phase"] = "selected?"
			if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		ev, err := w.Next(ctx)
		if err != nil || ev.Type != reflector.Updated || ev.Object.Name != "cm-00023" {
			t.Errorf("first event through the selectors: %v %v, %v; want Updated cm-00023", ev.Type, ev.Object, err)
		}
	})

	t.Run("streaming list", func(t *testing.T) {
		w, err := lw.Watch(ctx, reflector.WatchOptions{SendInitialEvents: true, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		var got []string
		for {
			ev, err := w.Next(ctx)
			if err != nil {
				t.Fatalf("streaming list ended early: %v", err)
			}
			if ev.Type == reflector.Bookmark && ev.InitialEventsEnd {
				if ev.ResourceVersion == "" {
					t.Error("initial-events-end bookmark without a version")
				}
				break
			}
			if ev.Type != reflector.Added {
				t.Fatalf("initial event %v, want Added", ev.Type)
			}
			got = append(got, ev.Object.Name)
		}
		slices.Sort(got)
		if diff := cmp.Diff(wantAll, got); diff != "" {
			t.Errorf("streaming list mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("list at a future version", func(t *testing.T) {
		// The server answers after about 3s with a Retry-After header, which
		// client-go obeys up to 10 times; this client sees the first answer.
		cs := c.client(t, nil, withoutRetryAfter)
		lw := kube.Source[*corev1.ConfigMap](cs.CoreV1().ConfigMaps(ns))
		_, err := lw.List(ctx, reflector.ListOptions{ResourceVersion: "999999999999"})
		if !errors.Is(err, reflector.ErrExpired) || !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
			t.Errorf("List at a future version: %v, want ResourceVersionTooLarge wrapping reflector.ErrExpired", err)
		}
	})

	t.Run("dynamic client", func(t *testing.T) {
		dc, err := dynamic.NewForConfig(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		dlw := kube.Source[*unstructured.Unstructured](dc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns))
		res, err := dlw.List(ctx, reflector.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range res.Items {
			got = append(got, u.GetName())
		}
		if diff := cmp.Diff(wantAll, got); diff != "" {
			t.Errorf("dynamic List mismatch (-want +got):\n%s", diff)
		}
		w, err := dlw.Watch(ctx, reflector.WatchOptions{ResourceVersion: res.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-00249", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if ev, err := w.Next(ctx); err != nil || ev.Type != reflector.Deleted || ev.Object.GetName() != "cm-00249" {
			t.Errorf("dynamic watch event %v, %v; want Deleted cm-00249", ev.Type, err)
		}
	})

	t.Run("metadata client", func(t *testing.T) {
		mc, err := metadata.NewForConfig(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		mlw := kube.Source[*metav1.PartialObjectMetadata](mc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(ns))
		res, err := mlw.List(ctx, reflector.ListOptions{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 50 || res.Items[0].Name != "cm-00000" || res.Continue == "" {
			t.Errorf("metadata List: %d items, first %v, continue %q; want 50 from cm-00000 and a token", len(res.Items), res.Items[0].Name, res.Continue)
		}
	})
}
