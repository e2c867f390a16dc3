package informer_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/bench/internal/source"
)

// BenchmarkInformerRelist measures the relist of a full cache of 1M
// ConfigMaps, on the Kubernetes path. The synced informer's watch ends
// with an Error event saying that its version expired (HTTP 410), as a
// server's does when a watch falls too far behind, and the informer lists
// again: 1% of the objects changed since the previous list, a third of
// them updated, a third deleted and a third new. The time runs from the
// moment the reflector calls List (which waits for the benchmark, so that
// building the list and client-go's backoff before relisting are not
// timed) until the handler has been told about an object the source
// creates once the informer watches again, which both informers deliver
// after every notification of the relist. Bytes and allocations are
// counted over the same span. It also reports the handler's notifications
// per cached object (notified/object): client-go v0.37 tells a handler
// without a resync period about every object the relist found unchanged,
// typedcache only about the changes (see the informer package's
// differences from client-go).
func BenchmarkInformerRelist(b *testing.B) {
	n := measure.Size(1_000_000)
	b.Run("objects=1M,churn=1%", func(b *testing.B) {
		b.Run("path=kube", func(b *testing.B) {
			b.Run("impl=typedcache", func(b *testing.B) { informerRelist(b, n, kubeOver) })
			b.Run("impl=client-go", func(b *testing.B) {
				informerRelist(b, n, func(b *testing.B, s setup[*corev1.ConfigMap], src *source.ClientGo[*corev1.ConfigMap, *corev1.ConfigMapList]) harness[*corev1.ConfigMap] {
					return clientGoOver(b, configMaps, s, src)
				})
			})
		})
	})
}

// informerRelist is one run of BenchmarkInformerRelist over n objects,
// with the informer over builds over a source.
func informerRelist(b *testing.B, n int, over func(*testing.B, setup[*corev1.ConfigMap], *source.ClientGo[*corev1.ConfigMap, *corev1.ConfigMapList]) harness[*corev1.ConfigMap]) {
	ctx := context.Background()
	state := newChurn(n)
	src := source.NewClientGo(fixture.ConfigMaps, n)
	src.PrepareItems(state.list())
	var notified atomic.Int64
	var sentinel atomic.Pointer[string] // the name to wait for
	seen := make(chan struct{}, 1)
	h := over(b, setup[*corev1.ConfigMap]{objects: n, handlers: 1, on: func(_ int, obj *corev1.ConfigMap) {
		notified.Add(1)
		if name := sentinel.Load(); name != nil && obj.Name == *name {
			select {
			case seen <- struct{}{}:
			default: // told twice (a relist's resync): already signalled
			}
		}
	}}, src)
	// The initial list's last object is the first sentinel.
	last := fixture.Name(n - 1)
	sentinel.Store(&last)
	h.start()
	defer h.stop()
	<-seen

	var relisted int64 // notifications during the timed relists
	m := measure.PerItem(b, n, "object")
	for b.Loop() {
		m.Pause()
		changes := state.step(n / 100)
		src.PrepareItems(state.list())
		called, release := src.HoldNextList()
		if !src.Expire(ctx) {
			b.Fatal("watch closed")
		}
		<-called
		obj := state.add()
		sentinel.Store(&obj.Name)
		before := notified.Load()
		m.Resume()
		release()
		if !src.Send(ctx, watch.Added, obj) {
			b.Fatal("watch closed")
		}
		<-seen
		m.Pause()
		got := notified.Load() - before
		if got < int64(changes)+1 {
			b.Fatalf("the handler was told %d things, want at least %d", got, changes+1)
		}
		relisted += got
		m.Resume()
	}
	m.Report()
	b.ReportMetric(float64(relisted)/float64(b.N)/float64(n), "notified/object")
	if got, want := h.list(), state.live; got != want {
		b.Fatalf("cache has %d objects, want %d", got, want)
	}
}

// churn is the content of a source that changes between lists: which
// fixture objects exist, at which resource versions.
type churn struct {
	rv      []int // per object; 0: absent
	live    int   // objects present
	version int   // the source's latest resource version
	rng     *rand.Rand
}

// newChurn returns objects 0..n-1 at versions 1..n.
func newChurn(n int) *churn {
	c := &churn{rv: make([]int, n), live: n, version: n, rng: rand.New(rand.NewPCG(3, 4))}
	for i := range c.rv {
		c.rv[i] = i + 1
	}
	return c
}

// step changes k objects: k/3 updated, k/3 deleted, the rest created. It
// returns how many changed.
func (c *churn) step(k int) int {
	touched := make(map[int]bool, k)
	pick := func() int {
		for {
			i := c.rng.IntN(len(c.rv))
			if c.rv[i] != 0 && !touched[i] {
				touched[i] = true
				return i
			}
		}
	}
	for range k / 3 {
		c.version++
		c.rv[pick()] = c.version
	}
	for range k / 3 {
		c.rv[pick()] = 0
		c.live--
	}
	for range k - 2*(k/3) {
		c.add()
	}
	return k
}

// add creates an object and returns it.
func (c *churn) add() *corev1.ConfigMap {
	c.version++
	i := len(c.rv)
	c.rv = append(c.rv, c.version)
	c.live++
	return fixture.ConfigMap(i, c.version, i)
}

// list returns the present objects, new, and the source's version.
func (c *churn) list() ([]*corev1.ConfigMap, string) {
	items := make([]*corev1.ConfigMap, 0, c.live)
	for i, rv := range c.rv {
		if rv != 0 {
			items = append(items, fixture.ConfigMap(i, rv, i))
		}
	}
	return items, strconv.Itoa(c.version)
}
