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
//	go run . [-kubeconfig ~/.kube/config] [-namespace default] [-workers 2]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/typedcache/typedcache/informer"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty means $KUBECONFIG, ~/.kube/config, or in-cluster")
	namespace := flag.String("namespace", "", "namespace to watch; empty means all")
	workers := flag.Int("workers", 2, "number of reconcile workers")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, *workers, logger); err != nil {
		fmt.Fprintln(os.Stderr, "kubecontroller:", err)
		os.Exit(1)
	}
}

// run runs the controller until ctx ends.
func run(ctx context.Context, kubeconfig, namespace string, workers int, logger *slog.Logger) error {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
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
	if err := c.run(ctx, workers); err != nil && !errors.Is(err, context.Canceled) {
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
