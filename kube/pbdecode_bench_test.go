package kube

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// serverPod is Pod i as a Deployment's ReplicaSet creates it and a
// kubelet reports it, with the managedFields entries of both writers
// (field sets of 1.5 and 1 kB of JSON, as the server writes them).
func serverPod(i int) *corev1.Pod {
	hash := "7d4b9c6f5"
	started := metav1.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	changed := metav1.NewTime(started.Add(time.Duration(i%60) * time.Second))
	ip := fmt.Sprintf("10.244.%d.%d", i/250, i%250+2)
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}},
			InitialDelaySeconds: delay, PeriodSeconds: 10, TimeoutSeconds: 2, FailureThreshold: 3,
		}
	}
	running := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: name, Image: image, ImageID: image + "@sha256:" + strings.Repeat("5e", 32),
			ContainerID: "containerd://" + strings.Repeat(fmt.Sprintf("%02x", i%256), 32),
			Ready:       true, Started: new(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: changed}},
		}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "team-a", Name: fmt.Sprintf("web-%s-%05d", hash, i), GenerateName: "web-" + hash + "-",
			UID:             types.UID(fmt.Sprintf("2b1c%04x-9b8d-4c7e-a5f4-1d2e3c4b5a69", i)),
			ResourceVersion: fmt.Sprint(100000 + i), CreationTimestamp: started,
			Labels: map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": hash, "version": "v1.27.3"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/restartedAt": "2026-11-20T10:00:00Z",
				"prometheus.io/scrape":              "true",
				"prometheus.io/port":                "9090",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-" + hash,
				UID: "3f6c2a1e-9b8d-4c7e-a5f4-1d2e3c4b5a69", Controller: new(true), BlockOwnerDeletion: new(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
					Time: &started, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(podSpecFields)},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
					Time: &changed, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(podStatusFields), Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("node-%02d", i%50),
			Containers: []corev1.Container{{
				Name:  "web",
				Image: "registry.example.com/team/web:v1.27.3",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}, {Name: "metrics", ContainerPort: 9090, Protocol: "TCP"}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"},
					{Name: "CONFIG_PATH", Value: "/etc/web/config.yaml"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				ReadinessProbe:           probe("/ready", 5),
				LivenessProbe:            probe("/healthz", 15),
				VolumeMounts:             []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web", ReadOnly: true}, {Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: "File", ImagePullPolicy: "IfNotPresent",
			}},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}, DefaultMode: new(int32(420))}}},
			},
			RestartPolicy: "Always", DNSPolicy: "ClusterFirst", ServiceAccountName: "default", SchedulerName: "default-scheduler",
			TerminationGracePeriodSeconds: new(int64(30)), EnableServiceLinks: new(true), PreemptionPolicy: new(corev1.PreemptLowerPriority),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: new(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: new(int64(300))},
			},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: started},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: changed},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: changed},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
			},
			HostIP: fmt.Sprintf("192.168.1.%d", i%50+10), PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			StartTime: &started, QOSClass: corev1.PodQOSBurstable,
			ContainerStatuses: []corev1.ContainerStatus{running("web", "registry.example.com/team/web:v1.27.3")},
		},
	}
}

const podSpecFields = `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{},"f:tier":{},"f:version":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"3f6c2a1e-9b8d-4c7e-a5f4-1d2e3c4b5a69\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"CONFIG_PATH\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"POD_NAME\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:initialDelaySeconds":{},"f:periodSeconds":{},"f:successThreshold":{},"f:timeoutSeconds":{}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}},"k:{\"containerPort\":9090,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}},"f:initialDelaySeconds":{},"f:periodSeconds":{},"f:successThreshold":{},"f:timeoutSeconds":{}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/web\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}}}}}`

const podStatusFields = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"` + `10.244.0.2\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`

// updatedConfigMap is the i-th update of a stream that changes 100
// ConfigMaps in turn, as kube/integration's BenchmarkUpdates records
// them: 3 labels, 3 data entries of 32 bytes that each update changes,
// and the managedFields entry of the one writer.
func updatedConfigMap(i int) *corev1.ConfigMap {
	obj, round := i%100, i/100
	at := metav1.NewTime(time.Date(2026, 11, 20, 10, 0, i%60, 0, time.UTC))
	value := func(k string) string { return fmt.Sprintf("%-32s", fmt.Sprintf("%s-%d-%d", k, obj, round)) }
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "bench-7", Name: fmt.Sprintf("cm-%05d", obj), UID: types.UID(fmt.Sprintf("2b1c%04x-9b8d-4c7e-a5f4-1d2e3c4b5a69", obj)),
			ResourceVersion: fmt.Sprint(100000 + i), CreationTimestamp: at,
			Labels: map[string]string{"app": "web", "tier": "frontend", "group": fmt.Sprint(obj % 10)},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "integration.test", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: &at, FieldsType: "FieldsV1",
				FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:config.yaml":{},"f:feature":{},"f:phase":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:group":{},"f:tier":{}}}}`),
			}},
		},
		Data: map[string]string{"config.yaml": value("c"), "feature": value("f"), "phase": value("p")},
	}
}

// decodeBench decodes the marshalled objects in turn, as a source does,
// with the compiled decoder or with the generated Unmarshal and the
// interning walk. It reports the time and allocations per object, and
// the heap an object retains when all of them are kept.
func decodeBench[T Object](b *testing.B, o *objectType[T], compiled bool, msgs [][]byte) {
	if !compiled {
		o.pb = nil
	} else if o.pb == nil {
		b.Fatal("the type does not compile")
	}
	kept := make([]T, len(msgs))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i, m := range msgs {
		kept[i] = o.new()
		if err := o.unmarshal(m, kept[i]); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(msgs))
	runtime.KeepAlive(kept)
	kept = nil
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		obj := o.new()
		if err := o.unmarshal(msgs[i%len(msgs)], obj); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(retained, "retained-B/obj")
}

func marshalAll[T interface{ Marshal() ([]byte, error) }](b *testing.B, n int, object func(int) T) [][]byte {
	msgs := make([][]byte, n)
	for i := range msgs {
		var err error
		if msgs[i], err = object(i).Marshal(); err != nil {
			b.Fatal(err)
		}
	}
	return msgs
}

// BenchmarkProtobufDecode compares decoding and interning an object with
// the compiled decoder (compiled) against the generated Unmarshal
// followed by the interning walk (generated), per object, and the same
// for a source that drops managedFields; readonly is the compiled decoder
// for objects that will not be modified, which shares their equal maps.
func BenchmarkProtobufDecode(b *testing.B) {
	const n = 2000
	pods := marshalAll(b, n, serverPod)
	configMaps := marshalAll(b, n, func(i int) *corev1.ConfigMap { cm := managedConfigMap(i); return &cm })
	updates := marshalAll(b, n, updatedConfigMap)
	for _, name := range []string{"generated", "compiled", "readonly"} {
		b.Run("Pod/"+name, func(b *testing.B) { decodeBench(b, decoding(podType(false), name), name != "generated", pods) })
		b.Run("PodDropManagedFields/"+name, func(b *testing.B) {
			decodeBench(b, decoding(podType(true), name), name != "generated", pods)
		})
		b.Run("ConfigMap/"+name, func(b *testing.B) {
			decodeBench(b, decoding(configMapType(), name), name != "generated", configMaps)
		})
		b.Run("ConfigMapUpdates/"+name, func(b *testing.B) {
			decodeBench(b, decoding(configMapType(), name), name != "generated", updates)
		})
	}
}

// decoding returns o for the benchmark row name: readonly decodes objects
// that will not be modified.
func decoding[T Object](o *objectType[T], name string) *objectType[T] {
	if name == "readonly" {
		return readOnly(o)
	}
	return o
}
