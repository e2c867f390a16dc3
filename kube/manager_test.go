package kube_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/kube/leader"
)

func TestNewManagerConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  *rest.Config
		want string
	}{
		{"nil config", nil, "nil rest.Config"},
		{"invalid host", &rest.Config{Host: "http://a b"}, "building the clientset"},
		{"missing certificate", &rest.Config{Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CertFile: "/nonexistent/cert.pem", KeyFile: "/nonexistent/key.pem"}}, "building the clientset"},
	}
	for _, tt := range tests {
		m, err := kube.NewManager(tt.cfg, kube.ManagerOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewManager() = %v, %v; want an error containing %q", tt.name, m, err, tt.want)
		}
	}
}

func TestNewManagerRateLimit(t *testing.T) {
	tests := []struct {
		name    string
		qps     float32
		limited bool
	}{
		{"no QPS: no client-side limit", 0, false},
		{"QPS set: kept", 5, true},
	}
	for _, tt := range tests {
		cfg := &rest.Config{Host: "https://127.0.0.1:6443", QPS: tt.qps, Burst: 10}
		m, err := kube.NewManager(cfg, kube.ManagerOptions{})
		if err != nil {
			t.Fatalf("%s: NewManager() = %v", tt.name, err)
		}
		if cfg.QPS != tt.qps {
			t.Errorf("%s: NewManager changed the caller's QPS to %v", tt.name, cfg.QPS)
		}
		if got := m.Clientset.CoreV1().RESTClient().GetRateLimiter() != nil; got != tt.limited {
			t.Errorf("%s: the client has a rate limiter: %v, want %v", tt.name, got, tt.limited)
		}
		if m.Factory == nil || m.Manager == nil || m.Elector != nil {
			t.Errorf("%s: NewManager() = %+v, want a factory, a manager and no elector", tt.name, m)
		}
	}
}

func TestNewManagerLeaderElectionErrors(t *testing.T) {
	defer kube.SetNamespaceFile(filepath.Join(t.TempDir(), "absent"))()
	empty := filepath.Join(t.TempDir(), "namespace")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		file  string // the namespace file, if not the absent one
		opts  kube.ManagerOptions
		want  string
		wraps error
	}{
		{"no namespace outside a pod", "", kube.ManagerOptions{LeaderElection: kube.LeaderElection{Lease: "l"}}, "set LeaderElection.Namespace", nil},
		{"empty namespace file", empty, kube.ManagerOptions{LeaderElection: kube.LeaderElection{Lease: "l"}}, "set LeaderElection.Namespace", nil},
		{"both a Lease and an Elector", "", kube.ManagerOptions{
			Manager:        controller.ManagerOptions{Elector: &leader.Elector{}},
			LeaderElection: kube.LeaderElection{Lease: "l", Namespace: "ns"},
		}, "choose one", nil},
		{"invalid timings", "", kube.ManagerOptions{LeaderElection: kube.LeaderElection{Lease: "l", Namespace: "ns", Options: leader.Options{
			LeaseDuration: time.Second, RenewDeadline: 2 * time.Second,
		}}}, "leader election", leader.ErrInvalid},
	}
	for _, tt := range tests {
		restore := func() {}
		if tt.file != "" {
			restore = kube.SetNamespaceFile(tt.file)
		}
		m, err := kube.NewManagerForClientset(fake.NewClientset(), tt.opts)
		restore()
		if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.wraps != nil && !errors.Is(err, tt.wraps)) {
			t.Errorf("%s: NewManagerForClientset() = %v, %v; want an error containing %q", tt.name, m, err, tt.want)
		}
	}
	if _, err := kube.NewManagerForClientset(nil, kube.ManagerOptions{}); err == nil {
		t.Error("NewManagerForClientset(nil) = nil error, want one")
	}
}

// TestManagerLeaderElection runs a manager elected on a Lease whose
// namespace comes from the pod's service account: it takes the Lease
// under its default identity and runs its controller.
func TestManagerLeaderElection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "namespace")
	if err := os.WriteFile(file, []byte("controllers\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer kube.SetNamespaceFile(file)()
	synctest.Test(t, func(t *testing.T) {
		cs := fake.NewClientset(configMap("ns", "a", "uid-a", map[string]string{"k": "1"}))
		m, err := kube.NewManagerForClientset(cs, kube.ManagerOptions{
			Factory:        informer.FactoryOptions{Logger: discard},
			LeaderElection: kube.LeaderElection{Lease: "mirror"},
		})
		if err != nil {
			t.Fatal(err)
		}
		host, err := os.Hostname()
		if err != nil {
			t.Fatal(err)
		}
		id := m.Elector.Identity()
		if suffix, ok := strings.CutPrefix(id, host+"_"); !ok || len(suffix) != 26 {
			t.Errorf("Identity() = %q, want %q, '_' and 26 random characters", id, host)
		}
		r, c := newMirror(t, m)
		runManager(t, m)
		settle(t, c)
		lease, err := cs.CoordinationV1().Leases("controllers").Get(t.Context(), "mirror", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Get(Lease controllers/mirror) = %v", err)
		}
		if got := *lease.Spec.HolderIdentity; got != id {
			t.Errorf("Lease holder = %q, want %q", got, id)
		}
		if diff := cmp.Diff([]string{"ns/a"}, r.take()); diff != "" {
			t.Errorf("reconciled keys mismatch (-want +got):\n%s", diff)
		}
		if _, err := cs.CoreV1().Secrets("ns").Get(t.Context(), "a", metav1.GetOptions{}); err != nil {
			t.Errorf("the leader's controller did not create its Secret: %v", err)
		}
	})
}
