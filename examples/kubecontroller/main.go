// Command kubecontroller is a Kubernetes controller built on typedcache: it
// restarts a Deployment's pods when a ConfigMap they use changes.
//
// It is a controller.Controller run by a controller.Manager: the
// controller reconciles Deployment keys (For), and a secondary index from
// each ConfigMap to the Deployments that use it (as a volume, with
// envFrom, or in an env var) maps ConfigMap changes to those keys
// (Watches). For every such Deployment it maintains the pod template
// annotation typedcache.io/config-hash, a digest of the data of those
// ConfigMaps; changing the annotation makes the Deployment roll out new
// pods.
//
// It runs against the cluster of -kubeconfig, $KUBECONFIG or
// ~/.kube/config, or in a pod with the in-cluster configuration (it needs
// to list and watch ConfigMaps and Deployments and to update Deployments):
//
//	go run . [-kubeconfig ~/.kube/config] [-namespace default] [-workers 2] [-replicas 3] [-addr :8081]
//
// With -replicas N it runs N replicas of the controller in this process,
// each a Manager with its own informers and queue whose Elector is a
// kube/shard Shard: each Deployment is reconciled by one replica, never
// by two at once. Their Leases, one per replica, are in the namespace
// watched ("default" when all are), in the group "kubecontroller";
// several processes started with -replicas share the Deployments the
// same way (they also need to get, list, create, update and delete
// Leases). With -addr (one replica only), the Manager serves /healthz and
// /readyz there.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube/shard"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty means $KUBECONFIG, ~/.kube/config, or in-cluster")
	namespace := flag.String("namespace", "", "namespace to watch; empty means all")
	workers := flag.Int("workers", 2, "number of reconcile workers")
	replicas := flag.Int("replicas", 0, "replicas of the controller in this process, sharing the Deployments through Leases; 0 runs one replica without Leases")
	addr := flag.String("addr", "", "address of the /healthz and /readyz endpoints (\":8081\"); empty means none; with -replicas 0 or 1 only")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := restConfig(*kubeconfig)
	if err == nil {
		err = run(ctx, cfg, config{namespace: *namespace, workers: *workers, replicas: *replicas, addr: *addr}, logger)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubecontroller:", err)
		os.Exit(1)
	}
}

// config is what the flags set.
type config struct {
	namespace string // "" for all
	workers   int
	replicas  int    // sharded replicas; 0 for one without Leases
	addr      string // of the health endpoints; "" for none
}

// run runs the controller until ctx ends: one replica without Leases, or
// cfg.replicas sharded ones.
func run(ctx context.Context, rc *rest.Config, cfg config, logger *slog.Logger) error {
	if cfg.addr != "" && cfg.replicas > 1 {
		return errors.New("-addr serves one replica: use it with -replicas 0 or 1")
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	if cfg.replicas <= 0 {
		return runReplica(ctx, client, cfg, nil, logger)
	}
	leaseNamespace := cmp.Or(cfg.namespace, "default")
	errs := make([]error, cfg.replicas)
	var wg sync.WaitGroup
	for i := range cfg.replicas {
		id := fmt.Sprintf("%s-%d-%d", hostname(), os.Getpid(), i)
		sh, err := shard.New(client.CoordinationV1().Leases(leaseNamespace), "kubecontroller", id, shard.Options{})
		if err != nil {
			return err
		}
		wg.Go(func() { errs[i] = runReplica(ctx, client, cfg, sh, logger.With("replica", id)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runReplica runs one replica of the controller until ctx ends; sh, if
// not nil, shards its keys with the other replicas.
func runReplica(ctx context.Context, client kubernetes.Interface, cfg config, sh *shard.Shard, logger *slog.Logger) error {
	m, _, err := newReplica(client, cfg, sh, logger)
	if err != nil {
		return err
	}
	return m.Run(ctx)
}

// newReplica returns the Manager of one replica and its controller.
func newReplica(client kubernetes.Interface, cfg config, sh *shard.Shard, logger *slog.Logger) (*controller.Manager, *controller.Controller[string], error) {
	factory := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	c, err := newController(client, factory, cfg.namespace, cfg.workers, logger)
	if err != nil {
		return nil, nil, err
	}
	opts := controller.ManagerOptions{Addr: cfg.addr}
	if sh != nil {
		opts.Elector = sh
	}
	m := controller.NewManager(factory, opts)
	if err := m.Add(c); err != nil {
		return nil, nil, err
	}
	return m, c, nil
}

// hostname returns the host's name in the form a Lease name accepts, or
// "kubecontroller".
func hostname() string {
	h, err := os.Hostname()
	h = strings.ToLower(h)
	if err != nil || len(validation.IsDNS1123Label(h)) > 0 {
		return "kubecontroller"
	}
	return h
}

// restConfig loads the configuration as kubectl does: the -kubeconfig
// file, else the files listed in $KUBECONFIG, else ~/.kube/config, else the
// in-cluster configuration.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}
