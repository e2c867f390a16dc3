package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func deployment(spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec:       appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: spec}},
	}
}

func TestConfigMapKeys(t *testing.T) {
	ref := func(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []string
	}{
		{name: "none", want: []string{}},
		{
			name: "volume, projection, envFrom and env, sorted and deduplicated",
			spec: corev1.PodSpec{
				Volumes: []corev1.Volume{
					{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref("b")}}},
					{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: ref("d")}}}}}},
					{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret"}}},
				},
				InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref("a")}}}}},
				Containers: []corev1.Container{{Env: []corev1.EnvVar{
					{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref("c"), Key: "k"}}},
					{Name: "Y", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref("b"), Key: "k"}}},
					{Name: "Z", Value: "literal"},
				}}},
			},
			want: []string{"ns/a", "ns/b", "ns/c", "ns/d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configMapKeys(deployment(tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("configMapKeys() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigHash(t *testing.T) {
	cms := map[string]*corev1.ConfigMap{
		"ns/a": {Data: map[string]string{"x": "1", "y": "2"}},
		"ns/b": {Data: map[string]string{}},
	}
	get := func(key string) (*corev1.ConfigMap, bool) { cm, ok := cms[key]; return cm, ok }
	base := configHash([]string{"ns/a", "ns/b"}, get)
	tests := []struct {
		name   string
		keys   []string
		change func()
		same   bool
	}{
		{name: "deterministic", keys: []string{"ns/a", "ns/b"}, same: true},
		{name: "data changed", keys: []string{"ns/a", "ns/b"}, change: func() { cms["ns/a"].Data["x"] = "3" }},
		{name: "key and value boundary moved", keys: []string{"ns/a", "ns/b"}, change: func() { cms["ns/a"].Data = map[string]string{"x1": "", "y": "2"} }},
		{name: "configmap missing instead of empty", keys: []string{"ns/a", "ns/b"}, change: func() { delete(cms, "ns/b") }},
		{name: "other configmaps", keys: []string{"ns/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := map[string]*corev1.ConfigMap{"ns/a": cms["ns/a"].DeepCopy(), "ns/b": cms["ns/b"]}
			defer func() { cms = saved }()
			if tt.change != nil {
				tt.change()
			}
			if got := configHash(tt.keys, get); (got == base) != tt.same {
				t.Errorf("configHash() = %s, base %s: same = %v, want %v", got, base, got == base, tt.same)
			}
		})
	}
}
