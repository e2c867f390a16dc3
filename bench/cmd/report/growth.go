package main

import (
	"fmt"
	"slices"
	"strings"
)

// growthSizes are the informer's syncs on the Kubernetes path whose cost
// per object should stay within growthGoal of each other, so that the
// cost of a cache grows linearly with its size.
var growthSizes = []struct{ label, bench string }{
	{"10k", "BenchmarkInformerSync/objects=10k/path=kube"},
	{"100k", "BenchmarkInformerSync/objects=100k/path=kube"},
	{"1M", "BenchmarkInformerSync/objects=1M/path=kube"},
}

// growthUnits are the costs per object compared across growthSizes.
var growthUnits = []string{"ns/object", "heap-B/object"}

// growthGoal is the largest ratio allowed between typedcache's costs per
// object at two sizes.
const growthGoal = 1.5

// A growthCheck compares one cost per object across growthSizes.
type growthCheck struct {
	unit     string
	cg, tc   []float64 // per size, medians of the runs
	measured bool      // every size measured on both sides
}

// growth returns one check per growth unit.
func growth(res *results) []growthCheck {
	var checks []growthCheck
	for _, unit := range growthUnits {
		g := growthCheck{unit: unit, measured: true}
		for _, s := range growthSizes {
			cg, okCG := res.median(s.bench, implClientGo, unit)
			tc, okTC := res.median(s.bench, implTypedcache, unit)
			g.cg, g.tc = append(g.cg, cg), append(g.tc, tc)
			g.measured = g.measured && okCG && okTC
		}
		checks = append(checks, g)
	}
	return checks
}

// spread returns the largest cost of vs divided by the smallest.
func spread(vs []float64) float64 {
	lo := slices.Min(vs)
	if lo <= 0 {
		return 0
	}
	return slices.Max(vs) / lo
}

// met reports whether typedcache's cost per object stayed within the
// goal.
func (g growthCheck) met() bool { return g.measured && spread(g.tc) <= growthGoal }

// what names the check in the list of missed targets.
func (g growthCheck) what() string {
	return fmt.Sprintf("%s cost per object from %s to %s objects (%s)", scaleArea,
		growthSizes[0].label, growthSizes[len(growthSizes)-1].label, g.unit)
}

// writeGrowth writes the table of costs per object by size.
func writeGrowth(b *strings.Builder, checks []growthCheck) {
	b.WriteString("\nCost per object by cache size (Run to HasSynced on the Kubernetes path; heap after a collection, objects included):\n\n")
	b.WriteString("| unit | implementation |")
	for _, s := range growthSizes {
		b.WriteString(" " + s.label + " |")
	}
	fmt.Fprintf(b, " largest ÷ smallest | goal | met |\n|---|---|%s--:|---|---|\n", strings.Repeat("--:|", len(growthSizes)))
	for _, g := range checks {
		for _, side := range []struct {
			name string
			vs   []float64
		}{{implClientGo, g.cg}, {implTypedcache, g.tc}} {
			fmt.Fprintf(b, "| %s | %s |", g.unit, side.name)
			for _, v := range side.vs {
				if g.measured {
					b.WriteString(" " + formatValue(v) + " |")
				} else {
					b.WriteString(" — |")
				}
			}
			goal, met := "", ""
			if side.name == implTypedcache {
				goal, met = fmt.Sprintf("≤ %gx", growthGoal), "**no**"
				if g.met() {
					met = "yes"
				}
				if !g.measured {
					met = "not measured"
				}
			}
			ratio := "—"
			if g.measured {
				ratio = formatRatio(spread(side.vs))
			}
			fmt.Fprintf(b, " %s | %s | %s |\n", ratio, goal, met)
		}
	}
}
