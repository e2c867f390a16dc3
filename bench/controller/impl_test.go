package controller_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crconfig "sigs.k8s.io/controller-runtime/pkg/config"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/typedcache/typedcache/bench/internal/fixture"
	"github.com/typedcache/typedcache/bench/internal/source"
	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/queue"
)

// The implementations, as named in the impl= component of benchmark names.
const (
	implTypedcache        = "typedcache"
	implControllerRuntime = "controller-runtime"
)

// workers is the number of workers of every controller.
const workers = 4

// sources are the in-memory clients of one manager: its Deployments and
// its ReplicaSets.
type sources struct {
	deployments *source.ClientGo[*appsv1.Deployment, *appsv1.DeploymentList]
	replicaSets *source.ClientGo[*appsv1.ReplicaSet, *appsv1.ReplicaSetList]
}

// newSources returns clients of Deployments 0..n-1 and of their
// ReplicaSets, their first lists prepared.
func newSources(n int) sources {
	s := sources{source.NewClientGo(fixture.Deployments, n), source.NewClientGo(fixture.ReplicaSets, n)}
	s.deployments.Prepare()
	s.replicaSets.Prepare()
	return s
}

// close stops the sources' watches.
func (s sources) close() {
	s.deployments.Close()
	s.replicaSets.Close()
}

// A running manager of either implementation.
type running struct {
	// settle returns once every controller's queue is empty and no
	// reconcile runs, where the implementation can tell (typedcache's
	// WaitIdle); controller-runtime has no such signal, and its settle
	// returns at once.
	settle func(ctx context.Context) error
	// stop stops the manager and returns once everything it started has
	// exited.
	stop func()
}

// An implementation starts a manager of controllers controllers of the
// benchmark's shape over srcs; every reconcile calls reconciled once it
// has read the primary object.
type implementation struct {
	name  string
	start func(tb testing.TB, srcs sources, controllers int, reconciled func()) running
}

var implementations = []implementation{
	{implTypedcache, startTypedcache},
	{implControllerRuntime, startControllerRuntime},
}

// ordered returns the implementations in the order this process runs
// them. The report runs these benchmarks in several processes, -count 1
// each, numbered by the variable BENCH_PROCESS: odd processes run
// controller-runtime first, even ones typedcache, so that over the
// processes each pair alternates (ABBA). Without the variable, typedcache
// runs first (go test's -count repeats each sub-benchmark in place).
func ordered() []implementation {
	if p, err := strconv.Atoi(os.Getenv(processVar)); err == nil && p%2 == 1 {
		return []implementation{implementations[1], implementations[0]}
	}
	return implementations
}

// processVar names the variable by which the report numbers the process
// a benchmark runs in.
const processVar = "BENCH_PROCESS"

// managers numbers the managers the benchmarks start, so that every
// controller has a name of its own in the process: controller-runtime
// keeps the metrics of each controller name in a global registry for the
// life of the process, and a manager whose controllers reused the names
// of an earlier one would find them already there.
var managers atomic.Int64

// controllerName returns the name of controller i of a new manager, the
// manager being the one numbered id.
func controllerName(id int64, i int) string { return fmt.Sprintf("deployment-%d-%d", id, i) }

// discard is the logger of typedcache's controllers: no records, as
// controller-runtime's here (see TestMain).
var discard = slog.New(slog.DiscardHandler)

// startTypedcache runs a controller.Manager over an informer.Factory with
// an informer of each resource through the kube adapter, and controllers
// controllers on them.
func startTypedcache(b testing.TB, srcs sources, controllers int, reconciled func()) running {
	f := informer.NewFactory(informer.FactoryOptions{Logger: discard})
	opts := kube.Options{DisableStreamingList: true, Logger: discard}
	deployments := informer.For(f, kube.SourceWithOptions[*appsv1.Deployment](srcs.deployments.Kube(), opts))
	replicaSets := informer.For(f, kube.SourceWithOptions[*appsv1.ReplicaSet](srcs.replicaSets.Kube(), opts))
	m := controller.NewManager(f, controller.ManagerOptions{})
	id := managers.Add(1)
	cs := make([]*controller.Controller[string], controllers)
	for i := range cs {
		c := controller.New(controllerName(id, i), func(_ context.Context, key string) (queue.Result, error) {
			if _, ok := deployments.Cache().GetByKey(key); ok {
				reconciled()
			}
			return queue.Result{}, nil
		}, controller.Options[string]{MaxConcurrentReconciles: workers, Logger: discard})
		if err := controller.For(c, deployments); err != nil {
			b.Fatal(err)
		}
		if err := kube.Owns[*appsv1.Deployment](c, replicaSets); err != nil {
			b.Fatal(err)
		}
		if err := m.Add(c); err != nil {
			b.Fatal(err)
		}
		cs[i] = c
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return running{
		settle: func(ctx context.Context) error {
			for _, c := range cs {
				if err := c.WaitIdle(ctx); err != nil {
					return err
				}
			}
			return nil
		},
		stop: func() {
			cancel()
			if err := <-done; err != nil {
				b.Error(err)
			}
		},
	}
}

// startControllerRuntime runs controller-runtime's manager with
// controllers controllers built by its builder, For Deployments and Owns
// ReplicaSets. The manager's cache builds its informers as it always
// does, except for their ListerWatcher: cache.Options.NewInformer gives
// them the in-memory source of their resource instead of a REST client's.
// No metrics or health endpoint is served, no leader is elected.
func startControllerRuntime(b testing.TB, srcs sources, controllers int, reconciled func()) running {
	newInformer := func(_ toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		var lw toolscache.ListerWatcher
		switch obj.(type) {
		case *appsv1.Deployment:
			lw = srcs.deployments
		case *appsv1.ReplicaSet:
			lw = srcs.replicaSets
		default:
			panic(fmt.Sprintf("no source of %T", obj))
		}
		return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
	}
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Scheme: clientgoscheme.Scheme,
		Logger: logr.Discard(),
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
			m := meta.NewDefaultRESTMapper(nil)
			m.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
			m.Add(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), meta.RESTScopeNamespace)
			return m, nil
		},
		Cache:      crcache.Options{NewInformer: newInformer},
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: crconfig.Controller{SkipNameValidation: new(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	cl := mgr.GetClient()
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		var d appsv1.Deployment
		if err := cl.Get(ctx, req.NamespacedName, &d); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		reconciled()
		return reconcile.Result{}, nil
	})
	id := managers.Add(1)
	for i := range controllers {
		err := builder.ControllerManagedBy(mgr).
			Named(controllerName(id, i)).
			For(&appsv1.Deployment{}).
			Owns(&appsv1.ReplicaSet{}).
			WithOptions(crcontroller.Options{MaxConcurrentReconciles: workers}).
			Complete(r)
		if err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return running{
		settle: func(context.Context) error { return nil },
		stop: func() {
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				b.Error(err)
			}
		},
	}
}

// A counter counts finished reconciles and tells when it reaches a
// target; it records when the first reconcile finished.
type counter struct {
	n       atomic.Int64
	target  atomic.Int64
	reached chan struct{} // receives once n reaches target
	first   chan struct{} // closed by the first reconcile
	once    atomic.Bool
}

func newCounter() *counter {
	return &counter{reached: make(chan struct{}, 1), first: make(chan struct{})}
}

// expect sets the target to n more reconciles than have finished. The
// benchmark calls it while nothing is being reconciled.
func (c *counter) expect(n int) { c.target.Store(c.n.Load() + int64(n)) }

// reconciled counts one finished reconcile.
func (c *counter) reconciled() {
	n := c.n.Add(1)
	if n == 1 && c.once.CompareAndSwap(false, true) {
		close(c.first)
	}
	if n == c.target.Load() {
		c.reached <- struct{}{}
	}
}

// wait returns once the target is reached, or fails b after a minute.
func (c *counter) wait(b testing.TB) {
	select {
	case <-c.reached:
	case <-time.After(time.Minute):
		b.Fatalf("%d reconciles finished, want %d", c.n.Load(), c.target.Load())
	}
}
