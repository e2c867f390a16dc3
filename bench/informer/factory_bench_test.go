package informer_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/bench/internal/measure"
	"github.com/typedcache/typedcache/bench/internal/source"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
)

// BenchmarkInformerFactory starts a factory of 50 informers, one per
// resource of a control plane's usual set, each with a namespace index
// and one handler, over idle in-memory clients (no objects, watches that
// stay quiet), until every informer has synced: typedcache's
// informer.Factory with informers from kube.SourceWithOptions, and
// client-go's SharedInformerFactory with informers built as its generated
// ones are (InformerFor, a ListWatch over the client). Besides the time to
// start, it reports what the idle factory holds once every informer
// watches: live heap (heap-B) and goroutine stacks (stack-B) after a
// collection, and goroutines.
func BenchmarkInformerFactory(b *testing.B) {
	b.Run("informers=50", func(b *testing.B) {
		if n := len(idleResources); n != 50 {
			b.Fatalf("%d resources, want 50", n)
		}
		b.Run("path=kube", func(b *testing.B) {
			b.Run("impl=typedcache", func(b *testing.B) { idleFactory(b, startTypedFactory) })
			b.Run("impl=client-go", func(b *testing.B) { idleFactory(b, startClientGoFactory) })
		})
	})
}

// idleFactory is one run of BenchmarkInformerFactory: start starts a
// factory and waits until it has synced, and returns a function that waits
// until every informer watches, and one that stops the factory.
func idleFactory(b *testing.B, start func(b *testing.B) (watching, stop func())) {
	m := measure.PerItem(b, len(idleResources), "informer")
	for b.Loop() {
		_, stop := start(b)
		m.Pause()
		stop()
		m.Resume()
	}
	m.Report()

	var before, after runtime.MemStats
	heap := measure.LiveHeap()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	watching, stop := start(b)
	watching()
	heap = measure.LiveHeap() - heap
	runtime.ReadMemStats(&after)
	goroutines = runtime.NumGoroutine() - goroutines
	stop()
	b.ReportMetric(float64(heap), "heap-B")
	b.ReportMetric(float64(after.StackInuse)-float64(before.StackInuse), "stack-B")
	b.ReportMetric(float64(goroutines), "goroutines")
}

// startTypedFactory starts typedcache's factory of every idle resource.
func startTypedFactory(b *testing.B) (watching, stop func()) {
	f := informer.NewFactory(informer.FactoryOptions{})
	watched := make([]<-chan struct{}, len(idleResources))
	for i, r := range idleResources {
		watched[i] = r.typed(b, f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	return waitAllClosed(watched), func() { cancel(); f.Shutdown() }
}

// startClientGoFactory starts client-go's factory of every idle resource.
func startClientGoFactory(b *testing.B) (watching, stop func()) {
	f := informers.NewSharedInformerFactory(nil, 0)
	watched := make([]<-chan struct{}, len(idleResources))
	for i, r := range idleResources {
		watched[i] = r.clientGo(b, f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.StartWithContext(ctx)
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			b.Fatalf("%v did not sync", typ)
		}
	}
	return waitAllClosed(watched), func() { cancel(); f.Shutdown() }
}

func waitAllClosed(chs []<-chan struct{}) func() {
	return func() {
		for _, c := range chs {
			<-c
		}
	}
}

// idleResource adds an informer of one resource over a new idle client to
// a factory of either implementation, and returns the client's Watched.
type idleResource struct {
	typed    func(*testing.B, *informer.Factory) <-chan struct{}
	clientGo func(*testing.B, informers.SharedInformerFactory) <-chan struct{}
}

// idle is the idleResource of objects *E listed as *X.
func idle[E, X any, T interface {
	*E
	kube.Object
}, L interface {
	*X
	kube.ListObject
}]() idleResource {
	return idleResource{
		typed: func(b *testing.B, f *informer.Factory) <-chan struct{} {
			c := source.NewIdle[X, L]()
			inf := informer.ForWithOptions(f, kube.SourceWithOptions[T](c, kube.Options{DisableStreamingList: true}),
				informer.Options[T]{Indexers: indexer.Indexers[T]{indexer.NamespaceIndex: indexer.NamespaceIndexFunc[T]}})
			if _, err := inf.AddEventHandler(informer.HandlerFuncs[T]{}); err != nil {
				b.Fatal(err)
			}
			return c.Watched()
		},
		clientGo: func(b *testing.B, f informers.SharedInformerFactory) <-chan struct{} {
			c := source.NewIdle[X, L]()
			inf := f.InformerFor(T(new(E)), func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
				lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
					ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
						return c.List(ctx, opts)
					},
					WatchFuncWithContext: c.Watch,
				}, c)
				return cache.NewSharedIndexInformer(lw, T(new(E)), resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			})
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
				b.Fatal(err)
			}
			return c.Watched()
		},
	}
}

// idleResources are 50 resources of the Kubernetes API.
var idleResources = []idleResource{
	idle[corev1.Pod, corev1.PodList](),
	idle[corev1.Service, corev1.ServiceList](),
	idle[corev1.ConfigMap, corev1.ConfigMapList](),
	idle[corev1.Secret, corev1.SecretList](),
	idle[corev1.Node, corev1.NodeList](),
	idle[corev1.Namespace, corev1.NamespaceList](),
	idle[corev1.PersistentVolume, corev1.PersistentVolumeList](),
	idle[corev1.PersistentVolumeClaim, corev1.PersistentVolumeClaimList](),
	idle[corev1.ServiceAccount, corev1.ServiceAccountList](),
	idle[corev1.Event, corev1.EventList](),
	idle[corev1.LimitRange, corev1.LimitRangeList](),
	idle[corev1.ResourceQuota, corev1.ResourceQuotaList](),
	idle[corev1.ReplicationController, corev1.ReplicationControllerList](),
	idle[corev1.PodTemplate, corev1.PodTemplateList](),
	idle[appsv1.Deployment, appsv1.DeploymentList](),
	idle[appsv1.ReplicaSet, appsv1.ReplicaSetList](),
	idle[appsv1.StatefulSet, appsv1.StatefulSetList](),
	idle[appsv1.DaemonSet, appsv1.DaemonSetList](),
	idle[appsv1.ControllerRevision, appsv1.ControllerRevisionList](),
	idle[batchv1.Job, batchv1.JobList](),
	idle[batchv1.CronJob, batchv1.CronJobList](),
	idle[networkingv1.Ingress, networkingv1.IngressList](),
	idle[networkingv1.IngressClass, networkingv1.IngressClassList](),
	idle[networkingv1.NetworkPolicy, networkingv1.NetworkPolicyList](),
	idle[networkingv1.IPAddress, networkingv1.IPAddressList](),
	idle[networkingv1.ServiceCIDR, networkingv1.ServiceCIDRList](),
	idle[rbacv1.Role, rbacv1.RoleList](),
	idle[rbacv1.RoleBinding, rbacv1.RoleBindingList](),
	idle[rbacv1.ClusterRole, rbacv1.ClusterRoleList](),
	idle[rbacv1.ClusterRoleBinding, rbacv1.ClusterRoleBindingList](),
	idle[storagev1.StorageClass, storagev1.StorageClassList](),
	idle[storagev1.CSIDriver, storagev1.CSIDriverList](),
	idle[storagev1.CSINode, storagev1.CSINodeList](),
	idle[storagev1.VolumeAttachment, storagev1.VolumeAttachmentList](),
	idle[policyv1.PodDisruptionBudget, policyv1.PodDisruptionBudgetList](),
	idle[coordinationv1.Lease, coordinationv1.LeaseList](),
	idle[discoveryv1.EndpointSlice, discoveryv1.EndpointSliceList](),
	idle[schedulingv1.PriorityClass, schedulingv1.PriorityClassList](),
	idle[nodev1.RuntimeClass, nodev1.RuntimeClassList](),
	idle[autoscalingv2.HorizontalPodAutoscaler, autoscalingv2.HorizontalPodAutoscalerList](),
	idle[admissionregistrationv1.ValidatingWebhookConfiguration, admissionregistrationv1.ValidatingWebhookConfigurationList](),
	idle[admissionregistrationv1.MutatingWebhookConfiguration, admissionregistrationv1.MutatingWebhookConfigurationList](),
	idle[admissionregistrationv1.ValidatingAdmissionPolicy, admissionregistrationv1.ValidatingAdmissionPolicyList](),
	idle[certificatesv1.CertificateSigningRequest, certificatesv1.CertificateSigningRequestList](),
	idle[eventsv1.Event, eventsv1.EventList](),
	idle[flowcontrolv1.FlowSchema, flowcontrolv1.FlowSchemaList](),
	idle[flowcontrolv1.PriorityLevelConfiguration, flowcontrolv1.PriorityLevelConfigurationList](),
	idle[resourcev1.ResourceClaim, resourcev1.ResourceClaimList](),
	idle[resourcev1.DeviceClass, resourcev1.DeviceClassList](),
	idle[resourcev1.ResourceClaimTemplate, resourcev1.ResourceClaimTemplateList](),
}
