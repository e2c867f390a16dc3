// Package controller compares typedcache's controller package with
// controller-runtime's builder and manager: the same controller through
// both, as the sub-benchmarks impl=typedcache and impl=controller-runtime.
//
// The controller is the usual shape of a Kubernetes controller: a primary
// resource (apps/v1 Deployments) and an owned one (apps/v1 ReplicaSets,
// each with a controller owner reference to its Deployment), a change of
// an owned object queueing its controller owner, a reconcile that reads
// the primary object from the cache and does nothing else, and 4 workers.
// typedcache's is controller.New with controller.For on the Deployments'
// informer and kube.Owns on the ReplicaSets' (controller.Watches with a
// map function that reads the controller owner reference), run by a
// controller.Manager; controller-runtime's is
// builder.ControllerManagedBy(mgr).For(Deployment).Owns(ReplicaSet), run
// by its manager, whose reconcile reads through the manager's client
// (from the cache).
//
// Both read the same in-memory client-go source of each resource
// (internal/source.ClientGo): typedcache through the kube adapter
// (kube.SourceWithOptions), as its Kubernetes users do; controller-runtime
// through its own cache, whose informers are built by its documented hook
// cache.Options.NewInformer over that source's ListerWatcher instead of
// the REST ListWatch the cache would build from the manager's rest.Config:
// the only part of controller-runtime replaced. Nothing is decoded on
// either side.
package controller
