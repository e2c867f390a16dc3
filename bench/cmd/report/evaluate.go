package main

import "math"

// An outcome is one row evaluated against one run.
type outcome struct {
	row
	cg, tc   float64
	measured bool // both sides have samples
	ratio    float64
	noise    float64 // largest relative deviation from the median, either side
	runs     int     // samples on the side with fewer
}

// hasTarget reports whether the row has a target.
func (o outcome) hasTarget() bool { return o.target != nil }

// met reports whether the row's target is met; false when not measured.
func (o outcome) met() bool {
	return o.measured && o.target != nil && o.target.met(o.cg, o.tc, o.ratio)
}

// evaluate computes every row's outcome from res.
func evaluate(res *results) []outcome {
	out := make([]outcome, 0, len(rows))
	for _, r := range rows {
		o := outcome{row: r}
		cg, okCG := res.median(r.bench, implClientGo, r.unit)
		tc, okTC := res.median(r.bench, implTypedcache, r.unit)
		if okCG && okTC {
			o.cg, o.tc, o.measured = cg, tc, true
			o.ratio = ratio(cg, tc, r.unit)
			o.noise = math.Max(res.spread(r.bench, implClientGo, r.unit), res.spread(r.bench, implTypedcache, r.unit))
			o.runs = min(len(res.samples[r.bench][implClientGo][r.unit]), len(res.samples[r.bench][implTypedcache][r.unit]))
		}
		out = append(out, o)
	}
	return out
}

// unlisted returns the benchmarks in res that no row refers to, so that a
// new benchmark is not silently left out of the report.
func unlisted(res *results) []string {
	listed := make(map[string]bool, len(rows))
	for _, r := range rows {
		listed[r.bench] = true
	}
	var names []string
	for name := range res.samples {
		if !listed[name] {
			names = append(names, name)
		}
	}
	return names
}
