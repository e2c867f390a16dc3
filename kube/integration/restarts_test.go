package integration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

const (
	// restarts is how many times TestRepeatedRestarts restarts the
	// apiserver, after restartEvery of service each time. (A restart
	// takes about 15 seconds: kube-apiserver stops listening at once but
	// exits only after about 10, and starts in about 3.) Three show
	// whether an informer recovers from outages in a row, not only from
	// the first; each more adds a restart and restartEvery to CI.
	restarts     = 3
	restartEvery = 20 * time.Second
	// blindBound is the longest typedcache's informer may go without
	// events once the server answers again: the backoff's longest delay
	// early in an outage (1.6s), with room for a relist and a shared CPU.
	blindBound = 10 * time.Second
)

// arrivals records when an informer's handler was told of each write of
// the test's writer, by the write's sequence number.
type arrivals struct {
	mu  sync.Mutex
	seq []int
	at  []time.Time
	p   *progress
}

func (a *arrivals) record(cm *corev1.ConfigMap) {
	seq, err := strconv.Atoi(cm.Data["seq"])
	if err != nil {
		return // not a write of the writer
	}
	a.mu.Lock()
	a.seq = append(a.seq, seq)
	a.at = append(a.at, time.Now())
	a.mu.Unlock()
	a.p.bump()
}

// firstAtLeast returns when the handler was first told of write seq or a
// later one.
func (a *arrivals) firstAtLeast(seq int) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.seq, func(s int) bool { return s >= seq })
	if i < 0 {
		return time.Time{}, false
	}
	return a.at[i], true
}

// write is one update of the writer: its sequence number, when it was
// sent and answered, and whether the server accepted it.
type write struct {
	seq        int
	sent, done time.Time
	ok         bool
}

// writeLog is every write of the writer, in order.
type writeLog struct {
	mu     sync.Mutex
	writes []write
}

func (l *writeLog) add(w write) {
	l.mu.Lock()
	l.writes = append(l.writes, w)
	l.mu.Unlock()
}

// recovery returns, for an outage that began after t, the first failed
// write (the server is gone) and the first write accepted after it (the
// server answers again).
func (l *writeLog) recovery(t time.Time) (down, up write, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.writes, func(w write) bool { return !w.ok && w.sent.After(t) })
	if i < 0 {
		return write{}, write{}, false
	}
	j := slices.IndexFunc(l.writes[i:], func(w write) bool { return w.ok })
	if j < 0 {
		return write{}, write{}, false
	}
	return l.writes[i], l.writes[i+j], true
}

// writeForever updates the configmaps cm-00000 to cm-00009 in turn, one
// every 20ms, numbering each write in data "seq", until ctx ends.
func writeForever(ctx context.Context, cs kubernetes.Interface, ns string, log *writeLog) {
	for seq := 1; ctx.Err() == nil; seq++ {
		cm := configMap(ns, seq%10)
		cm.Data["seq"] = strconv.Itoa(seq)
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		sent := time.Now()
		_, err := cs.CoreV1().ConfigMaps(ns).Update(rctx, cm, metav1.UpdateOptions{})
		cancel()
		if ctx.Err() != nil {
			return
		}
		log.add(write{seq: seq, sent: sent, done: time.Now(), ok: err == nil})
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestRepeatedRestarts restarts kube-apiserver three times, each after 20
// seconds of service, while a writer updates configmaps 50 times a second. After every
// restart, typedcache's informer must be told of the writes again within
// blindBound of the server's answer to the first write it accepts;
// client-go's informer, in the same process and against the same server,
// is measured alike and reported. Both caches must end equal to the
// server.
func TestRepeatedRestarts(t *testing.T) {
	c := newCluster(t)
	if c.script == "" {
		t.Skip("needs a cluster started by scripts/kube-apiserver/cluster, to restart it")
	}
	m := modes[0] // streaming lists, both libraries' default
	m.use(t)
	ns := c.namespace(t)
	cs := c.client(t, nil)
	createN(t, cs, ns, 0, 10)
	p := newProgress()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var shutdown func() // client-go's factory, which waits for its informers to stop
	defer func() {
		cancel()
		if shutdown != nil {
			shutdown()
		}
		wg.Wait()
	}()

	ourArrivals := &arrivals{p: p}
	inf := informer.New(kube.Source[*corev1.ConfigMap](c.client(t, nil).CoreV1().ConfigMaps(ns)),
		informer.Options[*corev1.ConfigMap]{ErrorHandler: func(context.Context, error) {}})
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		UpdateFunc: func(_, cm *corev1.ConfigMap) { ourArrivals.record(cm) },
	}); err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		if err := inf.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	})

	theirArrivals := &arrivals{p: p}
	f := informers.NewSharedInformerFactoryWithOptions(c.client(t, nil), 0, informers.WithNamespace(ns))
	cg := f.Core().V1().ConfigMaps().Informer()
	if _, err := cg.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { theirArrivals.record(obj.(*corev1.ConfigMap)) },
	}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	shutdown = f.Shutdown
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	sctx, scancel := context.WithTimeout(ctx, syncTimeout)
	defer scancel()
	if !cache.WaitForCacheSync(sctx.Done(), cg.HasSynced) {
		t.Fatal("client-go's informer not synced")
	}

	var log writeLog
	wctx, stopWriter := context.WithCancel(ctx)
	defer stopWriter()
	wg.Go(func() { writeForever(wctx, c.client(t, nil), ns, &log) })

	began := make([]time.Time, restarts)
	for i := range began {
		time.Sleep(restartEvery)
		began[i] = time.Now()
		c.restartAPIServer(t, func() {})
		t.Logf("restart %d: apiserver stopped and ready again in %v", i+1, time.Since(began[i]).Round(time.Millisecond))
	}

	// Wait for both informers to see a write made after the last restart
	// (client-go's may still be backing off), then measure.
	var last write
	waitUntil(t, p, 3*time.Minute, func() bool {
		_, up, ok := log.recovery(began[restarts-1])
		if !ok {
			return false
		}
		last = up
		_, mine := ourArrivals.firstAtLeast(up.seq)
		_, theirs := theirArrivals.firstAtLeast(up.seq)
		return mine && theirs
	}, func() string {
		return fmt.Sprintf("the informers have not seen write %d, made after the last restart", last.seq)
	})

	var report []string
	for i, b := range began {
		down, up, ok := log.recovery(b)
		if !ok {
			t.Fatalf("restart %d: the writer saw no outage and recovery", i+1)
		}
		var row strings.Builder
		fmt.Fprintf(&row, "restart %d: writes failed for %v;", i+1, up.done.Sub(down.sent).Round(time.Millisecond))
		for _, who := range []struct {
			name string
			a    *arrivals
		}{{"typedcache", ourArrivals}, {"client-go", theirArrivals}} {
			at, ok := who.a.firstAtLeast(up.seq)
			if !ok {
				t.Fatalf("restart %d: %s never saw write %d", i+1, who.name, up.seq)
			}
			// The event may arrive before the writer has the server's
			// answer: then the informer was not blind at all.
			gap := max(at.Sub(up.done), 0)
			fmt.Fprintf(&row, " %s blind %v;", who.name, gap.Round(time.Millisecond))
			if who.name == "typedcache" && gap > blindBound {
				t.Errorf("restart %d: typedcache's informer saw the writes again %v after the server accepted them, want at most %v", i+1, gap, blindBound)
			}
		}
		report = append(report, row.String())
	}
	t.Logf("blind time after each of %d restarts, %v of service apart: from the server's answer to the first write it accepted to the informer's handler hearing of that write or a later one\n%s",
		restarts, restartEvery, strings.Join(report, "\n"))

	stopWriter()
	want := serverState(t, cs, ns)
	waitForState(t, p, syncTimeout, want,
		stateSource{"typedcache cache", func() map[string]string {
			m := map[string]string{}
			for k, cm := range inf.Cache().All() {
				m[k] = cm.ResourceVersion
			}
			return m
		}},
		stateSource{"client-go cache", func() map[string]string {
			m := map[string]string{}
			for _, obj := range cg.GetStore().List() {
				cm := obj.(*corev1.ConfigMap)
				m[key(cm)] = cm.ResourceVersion
			}
			return m
		}})
}
