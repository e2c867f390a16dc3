package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// mode is one way of filling a cache: a streaming list (a watch with
// sendInitialEvents) or a classic paginated list followed by a watch.
type mode struct {
	name      string
	streaming bool
}

var modes = []mode{{"streaming", true}, {"classic", false}}

// watchListGate overrides client-go's WatchListClient feature gate, which
// both client-go's reflector and kube.Source read when they are created.
type watchListGate struct {
	on   bool
	base clientfeatures.Gates
}

func (g watchListGate) Enabled(key clientfeatures.Feature) bool {
	if key == clientfeatures.WatchListClient {
		return g.on
	}
	return g.base.Enabled(key)
}

// use switches both libraries to m until the test ends.
func (m mode) use(t testing.TB) {
	base := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(watchListGate{on: m.streaming, base: base})
	t.Cleanup(func() { clientfeatures.ReplaceFeatureGates(base) })
}

// check fails the test unless the requests n counted are those of m: no
// list at all with streaming, and no streaming watch without.
func (m mode) check(t *testing.T, who string, n *counter) {
	t.Helper()
	switch {
	case m.streaming && (n.lists.Load() != 0 || n.streams.Load() == 0):
		t.Errorf("%s made %v, want streaming lists and no list", who, n)
	case !m.streaming && (n.lists.Load() == 0 || n.streams.Load() != 0):
		t.Errorf("%s made %v, want lists and no streaming list", who, n)
	}
}

// view is what a handler has been told: key → resource version, built
// from its notifications alone. Violations of the delivery contract (an
// add of a known key, an update or delete of an unknown one, a version
// going backwards) are recorded.
type view struct {
	mu         sync.Mutex
	objs       map[string]string
	adds       int
	updates    int
	deletes    int
	inferred   int
	violations []string
	p          *progress
}

func newView(p *progress) *view { return &view{objs: map[string]string{}, p: p} }

func (v *view) add(key, rv string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.objs[key]; ok {
		v.violations = append(v.violations, "add of cached "+key)
	}
	v.objs[key] = rv
	v.adds++
	v.p.bump()
}

func (v *view) update(oldKey, oldRV, key, rv string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if oldKey != key {
		v.violations = append(v.violations, fmt.Sprintf("update from %s to %s", oldKey, key))
	}
	if cur, ok := v.objs[key]; !ok || cur != oldRV {
		v.violations = append(v.violations, fmt.Sprintf("update of %s from %s, handler knew %q", key, oldRV, cur))
	}
	v.objs[key] = rv
	v.updates++
	v.p.bump()
}

func (v *view) delete(key string, inferred bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.objs[key]; !ok {
		v.violations = append(v.violations, "delete of unknown "+key)
	}
	delete(v.objs, key)
	v.deletes++
	if inferred {
		v.inferred++
	}
	v.p.bump()
}

func (v *view) snapshot() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.objs)
}

func (v *view) check(t *testing.T, who string) {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.violations) > 0 {
		t.Errorf("%s handler saw %d contract violations, first: %q", who, len(v.violations), v.violations[:min(5, len(v.violations))])
	}
}

func key(m metav1.Object) string { return m.GetNamespace() + "/" + m.GetName() }

// ours is a typedcache informer of the configmaps of a namespace, with a
// handler recording its view and the errors the informer reported.
type ours struct {
	inf   *informer.Informer[*corev1.ConfigMap]
	view  *view
	reqs  *counter
	mu    sync.Mutex
	errs  []error
	typed struct{ updated, deleted int } // typed checks made by the handler
}

// startOurs starts our informer over src (nil: kube.Source of the
// namespace's configmaps through a counting client) and stops it when the
// test ends.
func startOurs(t *testing.T, c *cluster, ns string, p *progress, wrap func(reflector.ListerWatcher[*corev1.ConfigMap]) reflector.ListerWatcher[*corev1.ConfigMap]) *ours {
	t.Helper()
	o := &ours{view: newView(p), reqs: &counter{}}
	var src reflector.ListerWatcher[*corev1.ConfigMap] = kube.Source[*corev1.ConfigMap](c.client(t, o.reqs).CoreV1().ConfigMaps(ns))
	if wrap != nil {
		src = wrap(src)
	}
	o.inf = informer.New(src, informer.Options[*corev1.ConfigMap]{
		ErrorHandler: func(_ context.Context, err error) {
			o.mu.Lock()
			o.errs = append(o.errs, err)
			o.mu.Unlock()
		},
	})
	_, err := o.inf.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap, _ bool) { o.view.add(key(cm), cm.ResourceVersion) },
		UpdateFunc: func(old, cm *corev1.ConfigMap) {
			if cm.Data["phase"] == "updated" && old.Data["phase"] != "updated" {
				o.view.mu.Lock()
				o.typed.updated++
				o.view.mu.Unlock()
			}
			o.view.update(key(old), old.ResourceVersion, key(cm), cm.ResourceVersion)
		},
		DeleteFunc: func(d informer.Deleted[*corev1.ConfigMap]) {
			if d.Object != nil && key(d.Object) == d.Key {
				o.view.mu.Lock()
				o.typed.deleted++
				o.view.mu.Unlock()
			}
			o.view.delete(d.Key, d.Inferred)
		},
	})
	if err != nil {
		t.Fatalf("AddEventHandler: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := o.inf.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return o
}

func (o *ours) cache() map[string]string {
	m := map[string]string{}
	for k, cm := range o.inf.Cache().All() {
		m[k] = cm.ResourceVersion
	}
	return m
}

func (o *ours) errors() []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.errs)
}

// theirs is client-go's informer of the configmaps of a namespace, with
// the same recording handler.
type theirs struct {
	inf  cache.SharedIndexInformer
	view *view
	reqs *counter
}

func startTheirs(t *testing.T, c *cluster, ns string, p *progress) *theirs {
	t.Helper()
	th := &theirs{view: newView(p), reqs: &counter{}}
	var cs kubernetes.Interface = c.client(t, th.reqs)
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	th.inf = f.Core().V1().ConfigMaps().Informer()
	_, err := th.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			th.view.add(key(cm), cm.ResourceVersion)
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, cm := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			th.view.update(key(old), old.ResourceVersion, key(cm), cm.ResourceVersion)
		},
		DeleteFunc: func(obj any) {
			inferred := false
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj, inferred = d.Obj, true
			}
			th.view.delete(key(obj.(*corev1.ConfigMap)), inferred)
		},
	})
	if err != nil {
		t.Fatalf("AddEventHandler: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	t.Cleanup(func() { cancel(); f.Shutdown() })
	return th
}

func (th *theirs) cache() map[string]string {
	m := map[string]string{}
	for _, obj := range th.inf.GetStore().List() {
		cm := obj.(*corev1.ConfigMap)
		m[key(cm)] = cm.ResourceVersion
	}
	return m
}

// serverState lists the namespace's configmaps at the latest version.
func serverState(t *testing.T, cs kubernetes.Interface, ns string) map[string]string {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list configmaps: %v", err)
	}
	m := make(map[string]string, len(list.Items))
	for i := range list.Items {
		m[key(&list.Items[i])] = list.Items[i].ResourceVersion
	}
	return m
}

// diffStates summarises how got differs from want: missing keys, extra
// (phantom) keys and stale versions, a few of each.
func diffStates(want, got map[string]string) string {
	var missing, extra, stale []string
	for k, rv := range want {
		switch g, ok := got[k]; {
		case !ok:
			missing = append(missing, k)
		case g != rv:
			stale = append(stale, fmt.Sprintf("%s@%s want %s", k, g, rv))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(missing)+len(extra)+len(stale) == 0 {
		return ""
	}
	few := func(s []string) string { slices.Sort(s); return strings.Join(s[:min(3, len(s))], " ") }
	return fmt.Sprintf("%d objects, want %d: %d missing [%s], %d phantom [%s], %d stale [%s]",
		len(got), len(want), len(missing), few(missing), len(extra), few(extra), len(stale), few(stale))
}

// stateSource is a named snapshot function for waitForState.
type stateSource struct {
	name  string
	state func() map[string]string
}

// waitForState waits until every source equals want.
func waitForState(t *testing.T, p *progress, timeout time.Duration, want map[string]string, sources ...stateSource) {
	t.Helper()
	var lagging string
	waitUntil(t, p, timeout, func() bool {
		for _, s := range sources {
			if d := diffStates(want, s.state()); d != "" {
				lagging = s.name + ": " + d
				return false
			}
		}
		return true
	}, func() string { return lagging })
}
