package main

import (
	"maps"
	"math"
	"slices"
)

// An outcome is one row evaluated against one run.
type outcome struct {
	row
	cg, tc   float64 // the baseline's (client-go's unless baselines says otherwise) and typedcache's
	measured bool    // both sides have samples
	ratio    float64
	noise    float64 // largest relative deviation from the median, either side
	runs     int     // samples on the side with fewer
	// processes is the number of separate processes that measured both
	// sides, for rows run in several (see separate); 0 otherwise. cg, tc
	// are then the medians of the process medians, and the ranges span
	// the process medians of each side and the ratios of each process.
	processes                    int
	cgRange, tcRange, ratioRange [2]float64
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
		if !evaluateProcesses(res, &o) {
			base := baselineOf(r.area)
			cg, okCG := res.median(r.bench, base, r.unit)
			tc, okTC := res.median(r.bench, implTypedcache, r.unit)
			if okCG && okTC {
				o.cg, o.tc, o.measured = cg, tc, true
				o.ratio = ratio(cg, tc, r.unit)
				o.noise = math.Max(res.spread(r.bench, base, r.unit), res.spread(r.bench, implTypedcache, r.unit))
				o.runs = min(len(res.samples[r.bench][base][r.unit]), len(res.samples[r.bench][implTypedcache][r.unit]))
			}
		}
		out = append(out, o)
	}
	return out
}

// evaluateProcesses fills o from the separate processes that measured its
// row on both sides, if any, and reports whether there were.
func evaluateProcesses(res *results, o *outcome) bool {
	cgs := res.processMedians(o.bench, baselineOf(o.area), o.unit)
	tcs := res.processMedians(o.bench, implTypedcache, o.unit)
	var cg, tc, ratios []float64
	for _, p := range slices.Sorted(maps.Keys(cgs)) {
		if t, ok := tcs[p]; ok {
			cg, tc = append(cg, cgs[p]), append(tc, t)
			ratios = append(ratios, ratio(cgs[p], t, o.unit))
		}
	}
	if len(cg) == 0 {
		return false
	}
	o.cg, _ = median(cg)
	o.tc, _ = median(tc)
	o.measured = true
	o.ratio = ratio(o.cg, o.tc, o.unit)
	o.processes = len(cg)
	o.runs = len(cg)
	o.cgRange = [2]float64{slices.Min(cg), slices.Max(cg)}
	o.tcRange = [2]float64{slices.Min(tc), slices.Max(tc)}
	o.ratioRange = [2]float64{slices.Min(ratios), slices.Max(ratios)}
	return true
}

// unlisted returns the benchmarks in res that no row refers to, so that a
// new benchmark is not silently left out of the report.
func unlisted(res *results) []string {
	listed := make(map[string]bool, len(rows))
	for _, r := range rows {
		listed[r.bench] = true
	}
	for _, s := range shardBenches {
		listed[s.bench] = true
	}
	var names []string
	for name := range res.samples {
		if !listed[name] {
			names = append(names, name)
		}
	}
	return names
}
