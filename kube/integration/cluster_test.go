package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// cluster is the server under test.
type cluster struct {
	cfg *rest.Config
	// script restarts the apiserver; "" when the cluster was not started by
	// scripts/kube-apiserver/cluster.
	script string
	runDir string
	// etcd is the etcd client URL, or "" when unknown.
	etcd string
}

// newCluster connects to the server named by TYPEDCACHE_KUBECONFIG, or
// skips the test.
func newCluster(t testing.TB) *cluster {
	t.Helper()
	path := os.Getenv("TYPEDCACHE_KUBECONFIG")
	if path == "" {
		t.Skip("TYPEDCACHE_KUBECONFIG is not set: skipping the real-server tests " +
			"(scripts/kube-apiserver/ci builds a server and runs them)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", path, err)
	}
	cfg.QPS, cfg.Burst = 2000, 4000
	c := &cluster{cfg: cfg, etcd: os.Getenv("TYPEDCACHE_ETCD_ENDPOINT")}
	dir := filepath.Dir(path)
	script, err := filepath.Abs("../../scripts/kube-apiserver/cluster")
	if err == nil {
		if _, err := os.Stat(filepath.Join(dir, "kube-apiserver.pid")); err == nil {
			c.script, c.runDir = script, dir
		}
	}
	return c
}

// counter counts the list and watch requests a client makes for
// configmaps.
type counter struct {
	lists, watches, streams atomic.Int64
}

func (c *counter) String() string {
	return fmt.Sprintf("%d lists, %d watches, %d streaming lists", c.lists.Load(), c.watches.Load(), c.streams.Load())
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// client returns a clientset whose configmap list and watch requests n
// counts (n may be nil), with the given transport wrappers.
func (c *cluster) client(t testing.TB, n *counter, wrappers ...func(http.RoundTripper) http.RoundTripper) *kubernetes.Clientset {
	t.Helper()
	cfg := rest.CopyConfig(c.cfg)
	for _, w := range wrappers {
		cfg.Wrap(w)
	}
	if n != nil {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configmaps") {
					q := r.URL.Query()
					switch {
					case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
						n.streams.Add(1)
					case q.Get("watch") == "true":
						n.watches.Add(1)
					default:
						n.lists.Add(1)
					}
				}
				return rt.RoundTrip(r)
			})
		})
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return cs
}

// withoutRetryAfter removes the Retry-After header from responses, so that
// client-go returns the first error instead of retrying.
func withoutRetryAfter(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if resp != nil {
			resp.Header.Del("Retry-After")
		}
		return resp, err
	})
}

var nsSeq atomic.Int64

// namespace creates a namespace for one test and empties it afterwards.
// (Without a controller manager a deleted namespace stays Terminating, so
// its configmaps and pods are deleted explicitly, the pods at once as no
// kubelet will confirm their end; left behind, the benchmarks' thousands
// of pods would slow the server down for every later run.)
func (c *cluster) namespace(t testing.TB) string {
	t.Helper()
	cs := c.client(t, nil)
	name := fmt.Sprintf("typedcache-%d-%d", time.Now().UnixNano()%1e9, nsSeq.Add(1))
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cs.CoreV1().ConfigMaps(name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Logf("cleanup: delete configmaps of %s: %v", name, err)
		}
		now := int64(0)
		if err := cs.CoreV1().Pods(name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &now}, metav1.ListOptions{}); err != nil {
			t.Logf("cleanup: delete pods of %s: %v", name, err)
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Logf("cleanup: delete namespace %s: %v", name, err)
		}
	})
	return name
}

// restartAPIServer stops kube-apiserver and starts it again on the same
// port with the same certificates and etcd; between the two, between()
// runs (while the server is down).
func (c *cluster) restartAPIServer(t testing.TB, between func()) {
	t.Helper()
	if c.script == "" {
		t.Skip("the cluster was not started by scripts/kube-apiserver/cluster: cannot restart it")
	}
	for _, step := range []string{"stop-apiserver", "start-apiserver"} {
		if step == "start-apiserver" {
			between()
		}
		cmd := exec.Command(c.script, step)
		cmd.Env = append(os.Environ(), "TYPEDCACHE_KUBE_RUN="+c.runDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cluster %s: %v\n%s", step, err, out)
		}
	}
}

// etcdCall posts a JSON request to etcd's gRPC gateway.
func (c *cluster) etcdCall(t testing.TB, path string, req, resp any) {
	t.Helper()
	if c.etcd == "" {
		t.Skip("TYPEDCACHE_ETCD_ENDPOINT is not set: cannot reach etcd")
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := http.Post(c.etcd+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("etcd %s: %v", path, err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("etcd %s: %s", path, r.Status)
	}
	if err := json.NewDecoder(r.Body).Decode(resp); err != nil {
		t.Fatalf("etcd %s: decode: %v", path, err)
	}
}

type etcdHeader struct {
	Header struct {
		Revision string `json:"revision"`
	} `json:"header"`
}

// bumpAndCompactEtcd writes a key outside Kubernetes' prefix, so that
// etcd's revision moves past everything the apiserver has served, then
// compacts etcd's history up to that revision. It returns the revision.
func (c *cluster) bumpAndCompactEtcd(t testing.TB) int64 {
	t.Helper()
	var put etcdHeader
	c.etcdCall(t, "/v3/kv/put", map[string]string{"key": "dHlwZWRjYWNoZS1idW1w", "value": "MQ=="}, &put) // "typedcache-bump" = "1"
	rev, err := strconv.ParseInt(put.Header.Revision, 10, 64)
	if err != nil {
		t.Fatalf("etcd put: revision %q: %v", put.Header.Revision, err)
	}
	var compact etcdHeader
	c.etcdCall(t, "/v3/kv/compaction", map[string]any{"revision": rev, "physical": true}, &compact)
	return rev
}

// progress wakes waiters whenever handlers see an event; see waitUntil.
type progress struct{ ch chan struct{} }

func newProgress() *progress { return &progress{ch: make(chan struct{}, 1)} }

func (p *progress) bump() {
	select {
	case p.ch <- struct{}{}:
	default:
	}
}

// waitUntil returns when cond holds, checking it after every bump of p.
// Because handlers bump p after every event, no polling is needed: the
// condition is rechecked exactly when something changed. It fails the
// test, printing what(), after timeout.
func waitUntil(t testing.TB, p *progress, timeout time.Duration, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-p.ch:
		case <-deadline.C:
			t.Fatalf("timed out after %v: %s", timeout, what())
		}
	}
}

// parallel runs f(i) for i in [0, n) on workers goroutines and returns the
// first error.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
