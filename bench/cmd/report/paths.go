package main

import "strings"

// Areas of the report beyond the packages measured.
const (
	// scaleArea holds the informer's rows at scale and with realistic
	// objects, all on the Kubernetes path.
	scaleArea = "informer at scale"
	// customArea holds the reflector's and informer's rows on the direct
	// path, without targets.
	customArea = "custom sources"
)

// The path= components of the reflector's and informer's benchmarks. On
// path=kube, typedcache reads client-go's in-memory source through the
// kube adapter, as a Kubernetes user does: the headline, where the targets
// apply. On path=direct, it reads its own source of prebuilt objects.
const (
	pathKube   = "/path=kube"
	pathDirect = "/path=direct"
)

// withCustomSources returns rows followed, for every row of the reflector
// and informer areas (which are on the Kubernetes path), by the same row on
// the direct path in the custom sources area, without a target.
func withCustomSources(rows []row) []row {
	var custom []row
	for _, r := range rows {
		if (r.area == "reflector" || r.area == "informer") && strings.HasSuffix(r.bench, pathKube) {
			custom = append(custom, row{
				area:  customArea,
				bench: strings.TrimSuffix(r.bench, pathKube) + pathDirect,
				what:  r.area + ": " + r.what,
				unit:  r.unit,
			})
		}
	}
	return append(rows, custom...)
}
