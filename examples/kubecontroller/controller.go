package main

import (
	"context"
	"fmt"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/queue"
)

// hashAnnotation is the pod template annotation the controller maintains.
// Changing a pod template annotation makes the Deployment roll out new
// pods, which read the new configuration.
const hashAnnotation = "typedcache.io/config-hash"

// reconciler stamps every Deployment's pod template with the hash of the
// ConfigMaps its pods use, so that editing a ConfigMap restarts the pods
// that read it.
type reconciler struct {
	client      kubernetes.Interface
	deployments *informer.Informer[*appsv1.Deployment]
	configMaps  *informer.Informer[*corev1.ConfigMap]
	logger      *slog.Logger
}

// newController creates the controller's informers in factory, for the
// given namespace ("" for all), and returns the controller: it reconciles
// Deployment keys, queued by changes of Deployments and of the ConfigMaps
// they use, with workers workers.
func newController(client kubernetes.Interface, factory *informer.Factory, namespace string, workers int, logger *slog.Logger) (*controller.Controller[string], error) {
	r := &reconciler{
		client: client,
		// The one-line form: a shared, typed informer of a resource.
		configMaps: kube.For[*corev1.ConfigMap](factory, client.CoreV1().ConfigMaps(namespace)),
		// The long form, for an informer with a secondary index.
		deployments: informer.ForWithOptions(factory,
			kube.Source[*appsv1.Deployment](client.AppsV1().Deployments(namespace)),
			informer.Options[*appsv1.Deployment]{Indexers: indexer.Indexers[*appsv1.Deployment]{byConfigMap: configMapKeys}}),
		logger: logger,
	}
	c := controller.New("config-hash", r.reconcile, controller.Options[string]{
		MaxConcurrentReconciles: workers,
		ErrorLevel:              errorLevel,
		Logger:                  logger,
	})
	if err := controller.For(c, r.deployments); err != nil {
		return nil, err
	}
	if err := controller.Watches(c, r.configMaps, r.users); err != nil {
		return nil, err
	}
	return c, nil
}

// users maps a ConfigMap to the keys of the Deployments whose pods use
// it, through the byConfigMap index.
func (r *reconciler) users(cm *corev1.ConfigMap) []string {
	users, err := r.deployments.Cache().IndexKeys(byConfigMap, keys.Join(cm.Namespace, cm.Name))
	if err != nil { // only if the index were missing
		r.logger.Error("index lookup", "configmap", keys.Join(cm.Namespace, cm.Name), "err", err)
	}
	return users
}

// errorLevel logs conflicts at Debug: another writer changed the Deployment
// after the cache saw it, the informer will deliver the newer version, and
// the queue retries the key anyway.
func errorLevel(err error) slog.Level {
	if apierrors.IsConflict(err) {
		return slog.LevelDebug
	}
	return slog.LevelError
}

// reconcile brings one Deployment's hash annotation up to date. A failed
// update (a conflict with another writer, say) is retried by the queue
// with backoff.
func (r *reconciler) reconcile(ctx context.Context, key string) (queue.Result, error) {
	d, ok := r.deployments.Cache().GetByKey(key)
	if !ok {
		return queue.Result{}, nil // deleted since it was queued
	}
	refs, err := configMapKeys(d)
	if err != nil {
		return queue.Result{}, queue.TerminalError(err) // only a new version of the Deployment can fix it
	}
	if len(refs) == 0 {
		return queue.Result{}, nil
	}
	hash := configHash(refs, r.configMaps.Cache().GetByKey)
	if d.Spec.Template.Annotations[hashAnnotation] == hash {
		return queue.Result{}, nil
	}
	// Cached objects are shared: change a copy.
	d = d.DeepCopy()
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[hashAnnotation] = hash
	_, err = r.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return queue.Result{}, nil
	case err != nil:
		return queue.Result{}, fmt.Errorf("update deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	controller.LoggerFrom(ctx).Info("stamped configuration hash", "hash", hash, "configmaps", refs)
	return queue.Result{}, nil
}
