package main

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/typedcache/typedcache/keys"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// byConfigMap is the name of the Deployment index whose values are the
// keys ("namespace/name") of the ConfigMaps a Deployment's pods use.
const byConfigMap = "configmap"

// configMapKeys is the index function of byConfigMap: the sorted keys of
// every ConfigMap the pod template mounts as a volume, imports with
// envFrom, or reads a key of in an env var.
func configMapKeys(d *appsv1.Deployment) ([]string, error) {
	spec := &d.Spec.Template.Spec
	var names []string
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			names = append(names, v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					names = append(names, s.ConfigMap.Name)
				}
			}
		}
	}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				names = append(names, e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				names = append(names, e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	refs := make([]string, 0, len(names))
	for _, n := range names {
		if n == "" { // no ConfigMap has it; Join would give the empty key
			continue
		}
		refs = append(refs, keys.Join(d.Namespace, n))
	}
	slices.Sort(refs)
	return slices.Compact(refs), nil
}

// configHash digests the data of the ConfigMaps with the given keys, in
// order; get returns a cached ConfigMap. A missing ConfigMap counts as
// empty, so that creating it later changes the hash.
func configHash(keys []string, get func(key string) (*corev1.ConfigMap, bool)) string {
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		cm, ok := get(k)
		if !ok {
			h.Write([]byte{0})
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(cm.Data)) {
			h.Write([]byte(name))
			h.Write([]byte{0})
			h.Write([]byte(cm.Data[name]))
			h.Write([]byte{0})
		}
		for _, name := range slices.Sorted(maps.Keys(cm.BinaryData)) {
			h.Write([]byte(name))
			h.Write([]byte{0})
			h.Write(cm.BinaryData[name])
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
