package kube

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube/leader"
)

// namespaceFile holds the namespace of the pod a program runs in, where
// Kubernetes mounts its service account.
var namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// ManagerOptions configures NewManager and NewManagerForClientset. The zero
// value means a factory and a manager with their defaults, no HTTP
// endpoints and no leader election.
type ManagerOptions struct {
	// Manager holds the options of the controller.Manager: the address of
	// the health and metrics endpoints (Addr), the metrics handler, the
	// graceful shutdown timeout. Its Elector, for kube/shard say, must be
	// nil when LeaderElection.Lease is set.
	Manager controller.ManagerOptions
	// Factory holds the options of the informer factory.
	Factory informer.FactoryOptions
	// LeaderElection, when its Lease is set, makes the manager run its
	// controllers on one replica at a time, elected with kube/leader.
	LeaderElection LeaderElection
}

// LeaderElection names the Lease of a manager's leader election and this
// replica's identity in it.
type LeaderElection struct {
	// Lease is the name of the coordination.k8s.io/v1 Lease the replicas
	// campaign for; empty means no leader election.
	Lease string
	// Namespace is the Lease's namespace. Empty means the namespace of the
	// pod the program runs in, read from its service account; outside a
	// pod it must be set.
	Namespace string
	// Identity is this replica's identity, unique among the live
	// candidates. Empty means the host name (the pod's name in a pod)
	// followed by "_" and 26 random characters (crypto/rand.Text).
	Identity string
	// Options are the elector's timings; the zero value is kube/leader's
	// defaults.
	Options leader.Options
}

// Manager is a controller.Manager for one Kubernetes cluster, with the
// clientset and the informer factory its controllers use: Add them to it
// and Run it, as a controller.Manager.
type Manager struct {
	// Clientset is the cluster's client: make the informers' sources and
	// the reconciles' writes with it.
	Clientset kubernetes.Interface
	// Factory is the factory the manager runs: create the controllers'
	// informers from it (kube.For(m.Factory, ...)) before Run.
	Factory *informer.Factory
	// Elector is the leader elector, nil without leader election.
	Elector *leader.Elector
	*controller.Manager
}

// NewManager returns a Manager for the cluster cfg points to: it builds a
// clientset from a copy of cfg, an informer factory, and a
// controller.Manager running that factory, with a kube/leader.Elector when
// opts.LeaderElection.Lease is set:
//
//	m, err := kube.NewManager(cfg, kube.ManagerOptions{
//		Manager:        controller.ManagerOptions{Addr: ":8081"},
//		LeaderElection: kube.LeaderElection{Lease: "my-controller", Namespace: "default"},
//	})
//
// The copy of cfg keeps every setting cfg has, with these defaults for the
// ones it leaves zero:
//
//   - Content type: none set, so client-go's generated clients ask for
//     protobuf for the built-in types, with JSON as the fallback, and the
//     sources decode protobuf themselves (see Decoding).
//   - Rate limit: QPS 0 becomes -1, no client-side rate limit, as
//     controller-runtime does: the API server's priority and fairness
//     limits the load, and a burst of writes never delays a Lease
//     renewal behind the client's own queue. Set QPS and Burst to limit.
//   - Timeout: none, as in client-go, because rest.Config.Timeout bounds
//     every request, watches included, and would end them early. Watches
//     and lists carry the reflector's timeouts, and the elector bounds
//     its requests by its renew deadline.
//
// NewManager returns an error for a nil cfg, one client-go rejects (no
// host, an unreadable certificate, ...) and the errors of
// NewManagerForClientset.
func NewManager(cfg *rest.Config, opts ManagerOptions) (*Manager, error) {
	if cfg == nil {
		return nil, errors.New("kube: NewManager: nil rest.Config")
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS = -1
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube: NewManager: building the clientset: %w", err)
	}
	return NewManagerForClientset(cs, opts)
}

// NewManagerForClientset is NewManager for a clientset made elsewhere:
// client-go's fake clientset in a test, for example. It returns an error,
// wrapping leader.ErrInvalid for leader election options kube/leader
// rejects, when opts sets both LeaderElection.Lease and Manager.Elector,
// when LeaderElection.Namespace is empty outside a pod, and for a nil
// clientset.
func NewManagerForClientset(cs kubernetes.Interface, opts ManagerOptions) (*Manager, error) {
	if cs == nil {
		return nil, errors.New("kube: NewManager: nil clientset")
	}
	m := &Manager{Clientset: cs, Factory: informer.NewFactory(opts.Factory)}
	if le := opts.LeaderElection; le.Lease != "" {
		if opts.Manager.Elector != nil {
			return nil, errors.New("kube: NewManager: both LeaderElection.Lease and Manager.Elector are set: choose one")
		}
		el, err := newElector(cs, le)
		if err != nil {
			return nil, fmt.Errorf("kube: NewManager: leader election: %w", err)
		}
		m.Elector = el
		opts.Manager.Elector = el
	}
	m.Manager = controller.NewManager(m.Factory, opts.Manager)
	return m, nil
}

// newElector returns the elector of le, with le's defaults applied.
func newElector(cs kubernetes.Interface, le LeaderElection) (*leader.Elector, error) {
	ns := le.Namespace
	if ns == "" {
		b, err := os.ReadFile(namespaceFile)
		if err != nil {
			return nil, fmt.Errorf("the Lease's namespace is not set, and this program does not run in a pod (%w): set LeaderElection.Namespace", err)
		}
		if ns = strings.TrimSpace(string(b)); ns == "" {
			return nil, fmt.Errorf("the Lease's namespace is not set, and %s is empty: set LeaderElection.Namespace", namespaceFile)
		}
	}
	id := le.Identity
	if id == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("the identity is not set, and the host name is unknown (%w): set LeaderElection.Identity", err)
		}
		id = host + "_" + rand.Text()
	}
	return leader.New(cs.CoordinationV1().Leases(ns), le.Lease, id, le.Options)
}
