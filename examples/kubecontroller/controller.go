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

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// hashAnnotation is the pod template annotation the controller maintains.
// Changing a pod template annotation makes the Deployment roll out new
// pods, which read the new configuration.
const hashAnnotation = "typedcache.io/config-hash"

// controller stamps every Deployment's pod template with the hash of the
// ConfigMaps its pods use, so that editing a ConfigMap restarts the pods
// that read it.
type controller struct {
	client      kubernetes.Interface
	deployments *informer.Informer[*appsv1.Deployment]
	configMaps  *informer.Informer[*corev1.ConfigMap]
	queue       *queue.TypedRateLimitingQueue[deploymentKey]
	logger      *slog.Logger
}

// deploymentKey identifies a Deployment in the work queue.
type deploymentKey struct{ namespace, name string }

// newController creates the informers of the controller in factory, for
// the given namespace ("" for all), and registers its handlers.
func newController(client kubernetes.Interface, factory *informer.Factory, namespace string, logger *slog.Logger) (*controller, error) {
	c := &controller{
		client: client,
		// The one-line form: a shared, typed informer of a resource.
		configMaps: kube.For[*corev1.ConfigMap](factory, client.CoreV1().ConfigMaps(namespace)),
		// The long form, for an informer with a secondary index.
		deployments: informer.ForWithOptions(factory,
			kube.Source[*appsv1.Deployment](client.AppsV1().Deployments(namespace)),
			informer.Options[*appsv1.Deployment]{Indexers: indexer.Indexers[*appsv1.Deployment]{byConfigMap: configMapKeys}}),
		queue:  queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[deploymentKey](), queue.Options{Name: "deployments", Logger: logger}),
		logger: logger,
	}
	if _, err := c.deployments.AddEventHandler(informer.HandlerFuncs[*appsv1.Deployment]{
		AddFunc:    func(d *appsv1.Deployment, _ bool) { c.enqueue(d) },
		UpdateFunc: func(_, d *appsv1.Deployment) { c.enqueue(d) },
	}); err != nil {
		return nil, err
	}
	if _, err := c.configMaps.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc:    func(cm *corev1.ConfigMap, _ bool) { c.enqueueUsers(cm) },
		UpdateFunc: func(_, cm *corev1.ConfigMap) { c.enqueueUsers(cm) },
		DeleteFunc: func(d informer.Deleted[*corev1.ConfigMap]) { c.enqueueUsersOf(d.Key) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *controller) enqueue(d *appsv1.Deployment) {
	c.queue.Add(deploymentKey{d.Namespace, d.Name})
}

// enqueueUsers queues the Deployments whose pods use cm.
func (c *controller) enqueueUsers(cm *corev1.ConfigMap) {
	c.enqueueUsersOf(keys.Join(cm.Namespace, cm.Name))
}

func (c *controller) enqueueUsersOf(configMapKey string) {
	users, err := c.deployments.Cache().ByIndex(byConfigMap, configMapKey)
	if err != nil { // only if the index were missing
		c.logger.Error("index lookup", "configmap", configMapKey, "err", err)
		return
	}
	for _, d := range users {
		c.enqueue(d)
	}
}

// run processes the queue with workers goroutines until ctx ends. With a
// Shard, only the Deployments this replica owns are reconciled, and only
// while no other replica can be reconciling them.
func (c *controller) run(ctx context.Context, workers int, sh *shard.Shard) error {
	defer c.queue.ShutDown()
	opts := queue.RunOptions[deploymentKey]{Workers: workers, ErrorLevel: errorLevel}
	if sh == nil {
		return c.queue.Run(ctx, c.reconcile, opts)
	}
	work, err := shard.NewWork(sh, c.queue, deploymentKey.String, c.deploymentKeys)
	if err != nil {
		return err
	}
	return sh.Run(ctx, func(ctx context.Context) error {
		return c.queue.Run(ctx, work.Process(c.reconcile), opts)
	})
}

// String returns the key as namespace/name: the name the Shard hashes.
func (k deploymentKey) String() string { return keys.Join(k.namespace, k.name) }

// deploymentKeys yields the key of every cached Deployment: the keys a
// replica queues when it gains some.
func (c *controller) deploymentKeys(yield func(deploymentKey) bool) {
	for _, d := range c.deployments.Cache().All() {
		if !yield(deploymentKey{d.Namespace, d.Name}) {
			return
		}
	}
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
func (c *controller) reconcile(ctx context.Context, key deploymentKey) (queue.Result, error) {
	d, ok := c.deployments.Lister().Get(key.namespace, key.name)
	if !ok {
		return queue.Result{}, nil // deleted since it was queued
	}
	keys, err := configMapKeys(d)
	if err != nil {
		return queue.Result{}, queue.TerminalError(err) // only a new version of the Deployment can fix it
	}
	if len(keys) == 0 {
		return queue.Result{}, nil
	}
	hash := configHash(keys, c.configMaps.Cache().GetByKey)
	if d.Spec.Template.Annotations[hashAnnotation] == hash {
		return queue.Result{}, nil
	}
	// Cached objects are shared: change a copy.
	d = d.DeepCopy()
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[hashAnnotation] = hash
	_, err = c.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return queue.Result{}, nil
	case err != nil:
		return queue.Result{}, fmt.Errorf("update deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	c.logger.Info("stamped configuration hash", "deployment", key.namespace+"/"+key.name, "hash", hash, "configmaps", keys)
	return queue.Result{}, nil
}
