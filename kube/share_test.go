package kube_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// labelled is ConfigMap name with labels, as a Deployment's objects
// repeat them.
func labelled(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels}}
}

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// syncedConfigMaps runs an informer over a fake clientset holding objs
// and returns its cached objects by name.
func syncedConfigMaps(t *testing.T, opts kube.Options, transform func(*corev1.ConfigMap) (*corev1.ConfigMap, error), objs ...*corev1.ConfigMap) map[string]*corev1.ConfigMap {
	t.Helper()
	cs := fake.NewClientset()
	for _, o := range objs {
		if _, err := cs.CoreV1().ConfigMaps("ns").Create(t.Context(), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	src := kube.SourceWithOptions[*corev1.ConfigMap](cs.CoreV1().ConfigMaps("ns"), opts)
	inf := informer.New(src, informer.Options[*corev1.ConfigMap]{Transform: transform})
	ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	cached := map[string]*corev1.ConfigMap{}
	for _, o := range inf.Cache().List() {
		cached[o.Name] = o
	}
	cancel()
	<-done
	return cached
}

// With ShareAllMaps, cached objects whose labels are equal share one map;
// different labels, nil and empty maps stay what they were. By default a
// source over a fake, which does not decode, keeps every object's own.
func TestCachedObjectsShareEqualMaps(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "frontend"}
	shared := kube.Options{MapSharing: kube.ShareAllMaps}
	got := syncedConfigMaps(t, shared, nil,
		labelled("a", web), labelled("b", map[string]string{"app": "web", "tier": "frontend"}),
		labelled("c", map[string]string{"app": "db"}), labelled("d", nil), labelled("e", map[string]string{}))
	if !sameMap(got["a"].Labels, got["b"].Labels) {
		t.Error("a and b have equal labels in two maps")
	}
	if !reflect.DeepEqual(got["a"].Labels, web) || !reflect.DeepEqual(got["c"].Labels, map[string]string{"app": "db"}) {
		t.Errorf("labels changed: a %v, c %v", got["a"].Labels, got["c"].Labels)
	}
	if sameMap(got["a"].Labels, got["c"].Labels) {
		t.Error("different labels share a map")
	}
	if got["d"].Labels != nil || got["e"].Labels == nil {
		t.Errorf("nil labels became %v, empty labels became nil: %v", got["d"].Labels, got["e"].Labels == nil)
	}

	apart := syncedConfigMaps(t, kube.Options{}, nil, labelled("a", web), labelled("b", web))
	if sameMap(apart["a"].Labels, apart["b"].Labels) {
		t.Error("over a fake, by default, a and b share a map")
	}
}

// A Transform that edits maps in place edits the object's own maps: the
// informer shares them only after it.
func TestTransformEditsUnsharedMaps(t *testing.T) {
	dropTier := func(cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		if cm.Name == "b" {
			delete(cm.Labels, "tier")
		}
		return cm, nil
	}
	got := syncedConfigMaps(t, kube.Options{MapSharing: kube.ShareAllMaps}, dropTier,
		labelled("a", map[string]string{"app": "web", "tier": "frontend"}),
		labelled("b", map[string]string{"app": "web", "tier": "frontend"}),
		labelled("c", map[string]string{"app": "web", "tier": "frontend"}))
	want := map[string]map[string]string{
		"a": {"app": "web", "tier": "frontend"},
		"b": {"app": "web"},
		"c": {"app": "web", "tier": "frontend"},
	}
	for name, labels := range want {
		if !reflect.DeepEqual(got[name].Labels, labels) {
			t.Errorf("%s: labels %v, want %v", name, got[name].Labels, labels)
		}
	}
	if !sameMap(got["a"].Labels, got["c"].Labels) {
		t.Error("a and c, equal after the Transform, do not share their labels")
	}
}

// A handler that edits a cached object's shared map changes every object
// sharing it, and the mutation detector reports each of them.
func TestMutationDetectorReportsEditsOfSharedMaps(t *testing.T) {
	cs := fake.NewClientset(
		labelled("a", map[string]string{"app": "web"}),
		labelled("b", map[string]string{"app": "web"}),
		labelled("c", map[string]string{"app": "db"}))
	var mu sync.Mutex
	var reported []string
	src := kube.SourceWithOptions[*corev1.ConfigMap](cs.CoreV1().ConfigMaps("ns"), kube.Options{MapSharing: kube.ShareAllMaps})
	inf := informer.New(src, informer.Options[*corev1.ConfigMap]{
		MutationDetector: informer.MutationDetector[*corev1.ConfigMap]{Enabled: true, Period: time.Hour},
		ErrorHandler: func(_ context.Context, err error) {
			if me, ok := errors.AsType[*informer.CacheMutationError](err); ok {
				mu.Lock()
				reported = append(reported, me.Key)
				mu.Unlock()
			}
		},
	})
	edited := make(chan struct{})
	mustAddHandler(t, inf, informer.HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(cm *corev1.ConfigMap, _ bool) {
		if cm.Name == "a" {
			cm.Labels["app"] = "edited" // a bug: cm is the cached object
			close(edited)
		}
	}})
	ctx, cancel := context.WithTimeout(t.Context(), fakeTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	select {
	case <-edited:
	case <-ctx.Done():
		t.Fatal("the handler was not called for a")
	}
	if b, _ := inf.Lister().Get("ns", "b"); b.Labels["app"] != "edited" {
		t.Fatalf("b's labels %v: the edit of a's did not reach b, which shares them", b.Labels)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(reported)
	if want := []string{"ns/a", "ns/b"}; !slices.Equal(slices.Compact(reported), want) {
		t.Errorf("mutations reported for %v, want %v", reported, want)
	}
}

// Share shares maps by default where the source decodes responses itself
// (a generated typed client), and not where the client decodes them;
// KeepOwnMaps and ShareAllMaps override the default either way.
func TestMapSharingDefaults(t *testing.T) {
	cs, _, _ := realClients(t)
	fcs := fake.NewClientset()
	for _, tc := range []struct {
		name   string
		client kube.Client[*corev1.ConfigMapList]
		opts   kube.Options
		shares bool
	}{
		{"decoded by the source", cs.CoreV1().ConfigMaps("ns"), kube.Options{}, true},
		{"decoded by the source, KeepOwnMaps", cs.CoreV1().ConfigMaps("ns"), kube.Options{MapSharing: kube.KeepOwnMaps}, false},
		{"decoded by the client", cs.CoreV1().ConfigMaps("ns"), kube.Options{DecodeWithClient: true}, false},
		{"decoded by the client, ShareAllMaps", cs.CoreV1().ConfigMaps("ns"), kube.Options{DecodeWithClient: true, MapSharing: kube.ShareAllMaps}, true},
		{"fake", fcs.CoreV1().ConfigMaps("ns"), kube.Options{}, false},
		{"unknown value", cs.CoreV1().ConfigMaps("ns"), kube.Options{MapSharing: 200}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := kube.SourceWithOptions[*corev1.ConfigMap](tc.client, tc.opts)
			a := src.Share(labelled("a", map[string]string{"app": "web"}))
			b := src.Share(labelled("b", map[string]string{"app": "web"}))
			if got := sameMap(a.Labels, b.Labels); got != tc.shares {
				t.Errorf("equal labels shared: %v, want %v", got, tc.shares)
			}
			if !reflect.DeepEqual(b.Labels, map[string]string{"app": "web"}) {
				t.Errorf("labels became %v", b.Labels)
			}
		})
	}
}
