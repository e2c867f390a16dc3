package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/typedcache/typedcache/kube"
)

// A benchKind is one kind of object the benchmarks cache: how to create
// objects of it on the server, change them, and read them with either
// library.
type benchKind[T kube.Object, L kube.ListObject] struct {
	name     string // "configmaps", "pods": the resource, as in URLs
	client   func(cs kubernetes.Interface, ns string) kube.Client[L]
	informer func(f informers.SharedInformerFactory) cache.SharedIndexInformer
	// create creates object i of ns as its controllers would: a Pod is
	// created by one field manager and its status written by another.
	create func(ctx context.Context, cs kubernetes.Interface, ns string, i int) error
	// update changes object i of ns for the round-th time.
	update func(ctx context.Context, cs kubernetes.Interface, ns string, i, round int) error
}

// configMaps are ConfigMaps of the size the bench module uses: 3 labels
// and 3 data entries of 32 bytes, with the managedFields entry the server
// adds.
var configMaps = benchKind[*corev1.ConfigMap, *corev1.ConfigMapList]{
	name: "configmaps",
	client: func(cs kubernetes.Interface, ns string) kube.Client[*corev1.ConfigMapList] {
		return cs.CoreV1().ConfigMaps(ns)
	},
	informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().ConfigMaps().Informer()
	},
	create: func(ctx context.Context, cs kubernetes.Interface, ns string, i int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap(ns, i, 0), metav1.CreateOptions{})
		return err
	},
	update: func(ctx context.Context, cs kubernetes.Interface, ns string, i, round int) error {
		_, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, benchConfigMap(ns, i, round), metav1.UpdateOptions{})
		return err
	},
}

func benchConfigMap(ns string, i, round int) *corev1.ConfigMap {
	value := func(k string) string { return fmt.Sprintf("%-32s", fmt.Sprintf("%s-%d-%d", k, i, round)) }
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns,
			Name:      benchName("cm", i),
			Labels:    map[string]string{"app": "web", "tier": "frontend", "group": fmt.Sprint((i + 10) % 10)},
		},
		Data: map[string]string{"config.yaml": value("c"), "feature": value("f"), "phase": value("p")},
	}
}

// pods are Pods as a Deployment's ReplicaSet creates them and a kubelet
// reports them: two containers with probes, resources and environment, an
// owner reference, and a status with conditions and container statuses,
// about 6 kB of JSON with the managedFields of both writers.
var pods = benchKind[*corev1.Pod, *corev1.PodList]{
	name:   "pods",
	client: func(cs kubernetes.Interface, ns string) kube.Client[*corev1.PodList] { return cs.CoreV1().Pods(ns) },
	informer: func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Pods().Informer()
	},
	create: func(ctx context.Context, cs kubernetes.Interface, ns string, i int) error {
		p, err := cs.CoreV1().Pods(ns).Create(ctx, benchPod(ns, i), metav1.CreateOptions{FieldManager: "kube-controller-manager"})
		if err != nil {
			return err
		}
		p.Status = benchPodStatus(i, 0)
		_, err = cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: "kubelet"})
		return err
	},
	update: func(ctx context.Context, cs kubernetes.Interface, ns string, i, round int) error {
		patch, err := json.Marshal(map[string]corev1.PodStatus{"status": benchPodStatus(i, round)})
		if err != nil {
			return err
		}
		_, err = cs.CoreV1().Pods(ns).Patch(ctx, benchPodName(i), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubelet"}, "status")
		return err
	},
}

const podTemplateHash = "7d4b9c6f5"

func benchPodName(i int) string { return benchName("web-"+podTemplateHash, i) }

// benchName names object i, or the sentinel for i < 0.
func benchName(prefix string, i int) string {
	if i < 0 {
		return sentinel
	}
	return fmt.Sprintf("%s-%05d", prefix, i)
}

func benchPod(ns string, i int) *corev1.Pod {
	cpu, mem := resource.MustParse("250m"), resource.MustParse("256Mi")
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}},
			InitialDelaySeconds: delay, PeriodSeconds: 10, TimeoutSeconds: 2, FailureThreshold: 3,
		}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    ns,
			Name:         benchPodName(i),
			GenerateName: "web-" + podTemplateHash + "-",
			Labels:       map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": podTemplateHash, "version": "v1.27.3"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/restartedAt": "2026-11-20T10:00:00Z",
				"prometheus.io/scrape":              "true",
				"prometheus.io/port":                "9090",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-" + podTemplateHash,
				UID: "3f6c2a1e-9b8d-4c7e-a5f4-1d2e3c4b5a69", Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("node-%02d", i%50),
			Containers: []corev1.Container{{
				Name:  "web",
				Image: "registry.example.com/team/web:v1.27.3",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"},
					{Name: "CONFIG_PATH", Value: "/etc/web/config.yaml"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				ReadinessProbe: probe("/ready", 5),
				LivenessProbe:  probe("/healthz", 15),
				VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web", ReadOnly: true}, {Name: "cache", MountPath: "/var/cache/web"}},
			}, {
				Name:      "log-shipper",
				Image:     "registry.example.com/platform/log-shipper:2.4.1",
				Args:      []string{"--input=/var/log/web", "--output=collector.logging.svc:24224"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
			}},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
				{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
}

func benchPodStatus(i, round int) corev1.PodStatus {
	started := metav1.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	changed := metav1.NewTime(started.Add(time.Duration(round) * time.Second))
	ip := fmt.Sprintf("10.244.%d.%d", i/250, i%250+2)
	running := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: name, Image: image, ImageID: image + "@sha256:" + strings.Repeat("5e", 32),
			ContainerID: "containerd://" + strings.Repeat(fmt.Sprintf("%02x", i%256), 32),
			Ready:       true, Started: new(true), RestartCount: int32(round),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: changed}},
		}
	}
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: started},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: changed},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: changed},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
		},
		HostIP: fmt.Sprintf("192.168.1.%d", i%50+10), PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		StartTime: &started,
		QOSClass:  corev1.PodQOSBurstable,
		ContainerStatuses: []corev1.ContainerStatus{
			running("web", "registry.example.com/team/web:v1.27.3"),
			running("log-shipper", "registry.example.com/platform/log-shipper:2.4.1"),
		},
	}
}

// createAll creates objects [0, n) of k in ns, and the default service
// account that Pods need (without a controller manager, nobody else
// creates it).
func createAll[T kube.Object, L kube.ListObject](t testing.TB, cs kubernetes.Interface, k benchKind[T, L], ns string, n int) {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(context.Background(), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create service account: %v", err)
	}
	if err := parallel(n, writers, func(i int) error { return k.create(context.Background(), cs, ns, i) }); err != nil {
		t.Fatalf("create %s: %v", k.name, err)
	}
}
