package main

import "fmt"

// controllerArea holds the rows of a whole controller, typedcache's
// controller package against controller-runtime's builder and manager;
// their ratios and targets are against controller-runtime.
const controllerArea = "controller vs controller-runtime"

// fractionOf is met when typedcache's cost is at most fraction times the
// baseline's, named in the target's text.
func fractionOf(fraction float64, baseline string) *target {
	return &target{
		text:  fmt.Sprintf("≤ %gx %s", fraction, baseline),
		met:   func(base, tc, _ float64) bool { return tc <= base*fraction },
		ratio: 1 / fraction,
	}
}

// controllerRows are the controller's rows, with the targets of the
// controller issue; see the bench/controller package for the workloads.
var controllerRows = []row{
	{controllerArea, "BenchmarkControllerReconciles", "10k watch events on 10k Deployments and their ReplicaSets, to finished reconciles, 4 workers", "reconciles/s", ratioAtLeast(3)},
	{controllerArea, "BenchmarkControllerReconciles", "the same: allocations per reconcile, every goroutine", "allocs/reconcile", fractionOf(0.5, implControllerRuntime)},
	{controllerArea, "BenchmarkControllerReconciles", "the same: bytes per reconcile", "B/reconcile", nil},
	{controllerArea, "BenchmarkControllerStart", "start of a manager with one controller to its first finished reconcile, 10k Deployments and their ReplicaSets", "ns/start", nil},
	{controllerArea, "BenchmarkControllerIdleManager", "manager with 20 idle controllers: live heap", "heap-B", fractionOf(0.5, implControllerRuntime)},
	{controllerArea, "BenchmarkControllerIdleManager", "manager with 20 idle controllers: goroutine stacks", "stack-B", nil},
	{controllerArea, "BenchmarkControllerIdleManager", "manager with 20 idle controllers", "goroutines", nil},
}

// controllerNotes explain the controller's rows.
var controllerNotes = []string{
	"The same controller in both libraries: Deployments (apps/v1) as the primary resource and the ReplicaSets they own (a controller owner reference each), a change of a ReplicaSet queueing its controller owner, 4 workers, and a reconcile that reads the Deployment from the cache and does nothing else. typedcache: controller.New, controller.For on the Deployments' informer, kube.Owns on the ReplicaSets' (controller.Watches with a map function that reads the controller owner reference), run by a controller.Manager over an informer.Factory; the reconcile reads with the informer's Cache().GetByKey. controller-runtime v0.25: builder.ControllerManagedBy(mgr).For(&Deployment{}).Owns(&ReplicaSet{}), run by its manager (priority queue on, its default; no metrics or health endpoint served; no leader election); the reconcile reads with the manager's client, which reads from the cache and, by default, returns a deep copy.",
	"Both libraries read the same in-memory client-go source of each resource, as in the informer rows (internal/source.ClientGo): typedcache through the kube adapter (kube.SourceWithOptions), as its Kubernetes users do. controller-runtime's cache builds its informers from a rest.Config, with a REST ListWatch; it cannot read client-go's fake clientset. Its documented hook cache.Options.NewInformer builds each informer (client-go's NewSharedIndexInformer, with the cache's own resync and namespace index) over the same in-memory source's ListerWatcher instead: the only part of controller-runtime replaced, and nothing is encoded or decoded on either side. Logs are discarded on both sides.",
	"Reconciles: both managers synced and idle, each operation sends 10k watch events, a new resource version of Deployment i for even i and of ReplicaSet i for odd i, so that each queues a distinct key (10k reconciles, half through each watch), and waits until a counter in the reconcile function has counted the 10k (then, on typedcache's side only, Controller.WaitIdle, which adds to its time); building the new objects is not counted. Bytes and allocations count every goroutine from the first send to the last reconcile: the source, the informers, the mapping, the queue, the reconcile and its read.",
	"Start: from the start of the manager (whose informers then list 10k Deployments and 10k ReplicaSets) to the end of the first reconcile. controller-runtime's controller learns that its sources synced by polling, as client-go's WaitForCacheSync does (every 100ms).",
	"Idle manager: 20 controllers of the shape above in one manager (one informer per resource, shared, in both), one Deployment and its ReplicaSet, measured once each controller has reconciled the Deployment: live heap and goroutine stacks after a collection against the same before the manager was built, and goroutines. Every controller has a name not used before in the process, so that controller-runtime's metrics of each controller name, kept in a global registry, are counted, as in a new process.",
	"The rows run in separate processes (see above), -count 1 each, one pair per process; odd processes run controller-runtime first, even ones typedcache, so that the order alternates.",
}
