// Command kubecontroller is a Kubernetes controller built on typedcache: it
// restarts a Deployment's pods when a ConfigMap they use changes.
//
// It watches Deployments and ConfigMaps through one informer factory, with
// typed handlers and listers and a secondary index from each ConfigMap to
// the Deployments that use it (as a volume, with envFrom, or in an env
// var). For every such Deployment it maintains the pod template annotation
// typedcache.io/config-hash, a digest of the data of those ConfigMaps;
// changing the annotation makes the Deployment roll out new pods. Work goes
// through a typed, rate-limited work queue of Deployment keys.
//
// It runs against the cluster of -kubeconfig, $KUBECONFIG or
// ~/.kube/config, or in a pod with the in-cluster configuration (it needs
// to list and watch ConfigMaps and Deployments and to update Deployments):
//
//	go run . [-kubeconfig ~/.kube/config] [-namespace default] [-workers 2] [-replicas 3]
//
// With -replicas N it runs N replicas of the controller in this process,
// each with its own informers and queue, sharing the Deployments through
// kube/shard: each Deployment is reconciled by one replica, never by two
// at once. Their Leases, one per replica, are in the namespace watched
// ("default" when all are), in the group "kubecontroller"; several
// processes started with -replicas share the Deployments the same way
// (they also need to get, list, create, update and delete Leases).
package main

import (
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

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube/shard"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty means $KUBECONFIG, ~/.kube/config, or in-cluster")
	namespace := flag.String("namespace", "", "namespace to watch; empty means all")
	workers := flag.Int("workers", 2, "number of reconcile workers")
	replicas := flag.Int("replicas", 0, "replicas of the controller in this process, sharing the Deployments through Leases; 0 runs one replica without Leases")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, *workers, *replicas, logger); err != nil {
		fmt.Fprintln(os.Stderr, "kubecontroller:", err)
		os.Exit(1)
	}
}

// run runs the controller until ctx ends: one replica without Leases, or
// replicas sharded ones.
func run(ctx context.Context, kubeconfig, namespace string, workers, replicas int, logger *slog.Logger) error {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if replicas <= 0 {
		return runReplica(ctx, client, namespace, workers, nil, logger)
	}
	leaseNamespace := namespace
	if leaseNamespace == "" {
		leaseNamespace = "default"
	}
	leases := client.CoordinationV1().Leases(leaseNamespace)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		id := fmt.Sprintf("%s-%d-%d", hostname(), os.Getpid(), i)
		sh, err := shard.New(leases, "kubecontroller", id, shard.Options{})
		if err != nil {
			return err
		}
		wg.Go(func() { errs[i] = runReplica(ctx, client, namespace, workers, sh, logger.With("replica", id)) })
	}
	wg.Wait()
	return errors.Join(errs...)
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

// runReplica runs one replica of the controller until ctx ends; sh, if
// not nil, shards its keys with the other replicas.
func runReplica(ctx context.Context, client kubernetes.Interface, namespace string, workers int, sh *shard.Shard, logger *slog.Logger) error {
	factory := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	c, err := newController(client, factory, namespace, logger)
	if err != nil {
		return err
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	if err := factory.WaitForSync(ctx); err != nil {
		return err
	}
	logger.Info("caches synced", "deployments", c.deployments.Cache().Len(), "configmaps", c.configMaps.Cache().Len())
	if err := c.run(ctx, workers, sh); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// restConfig loads the configuration as kubectl does: the -kubeconfig
// file, else the files listed in $KUBECONFIG, else ~/.kube/config, else the
// in-cluster configuration.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}
