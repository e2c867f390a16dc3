package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// runInfo describes the run a report comes from.
type runInfo struct {
	date      string
	commit    string
	goVersion string
	cpus      int
	quick     bool
	count     int
	processes int
	command   string
	filter    string // go test -bench, if not every benchmark
	svgName   string
	rawName   string
	server    serverRun // the run of the real-server rows, if any
}

// Keys of the configuration lines the report adds to the raw output, in
// the benchmark format's "key: value" form (benchstat shows them).
const (
	keyDate      = "report-date"
	keyCommit    = "report-commit"
	keyGo        = "report-go"
	keyCPUs      = "report-cpus"
	keyMode      = "report-mode"
	keyCount     = "report-count"
	keyProcesses = "report-processes"
	keyBench     = "report-bench" // the -bench filter of a run of some benchmarks only
)

// header returns the configuration lines that describe the run, so that
// a report redrawn from the raw output (-from) states the run's facts.
func (info runInfo) header() string {
	mode := "full"
	if info.quick {
		mode = "quick"
	}
	h := fmt.Sprintf("%s: %s\n%s: %s\n%s: %s\n%s: %d\n%s: %s\n%s: %d\n%s: %d\n",
		keyDate, info.date, keyCommit, info.commit, keyGo, info.goVersion,
		keyCPUs, info.cpus, keyMode, mode, keyCount, info.count, keyProcesses, info.processes)
	if info.filter != "" && info.filter != "." {
		h += fmt.Sprintf("%s: %s\n", keyBench, info.filter)
	}
	return h
}

// restore takes the run's facts from the configuration lines of its raw
// output, where present.
func (info *runInfo) restore(config map[string]string) {
	if v, ok := config[keyDate]; ok {
		info.date = v
	}
	if v, ok := config[keyCommit]; ok {
		info.commit = v
	}
	if v, ok := config[keyGo]; ok {
		info.goVersion = v
	}
	if v, err := strconv.Atoi(config[keyCPUs]); err == nil {
		info.cpus = v
	}
	if v, ok := config[keyMode]; ok {
		info.quick = v == "quick"
		info.command = "go run ./cmd/report"
		if info.quick {
			info.command += " -quick"
		}
		if f := config[keyBench]; f != "" {
			info.command += " -bench '" + f + "'"
		}
	}
	if v, err := strconv.Atoi(config[keyCount]); err == nil {
		info.count = v
	}
	if v, err := strconv.Atoi(config[keyProcesses]); err == nil {
		info.processes = v
	}
	info.server = serverRunOf(config)
}

// writeMarkdown writes RESULTS.md for the outcomes of one run.
func writeMarkdown(w io.Writer, info runInfo, res *results, outs []outcome) error {
	var b strings.Builder
	b.WriteString("# typedcache vs client-go: benchmark results\n\n")
	fmt.Fprintf(&b, "![ratio per benchmark, log scale](%s)\n\n", info.svgName)
	mode := fmt.Sprintf("full sizes, `-count %d`", info.count)
	if info.quick {
		mode = fmt.Sprintf("**quick**: every size divided by 10 (names keep the full-size labels), `-count %d`", info.count)
	}
	fmt.Fprintf(&b, "- Run: %s, commit `%s`, %s.\n", info.date, info.commit, mode)
	fmt.Fprintf(&b, "- Machine: %s, %s/%s, %d CPUs; %s.\n", orUnknown(res.cpu), orUnknown(res.goos), orUnknown(res.goarch), info.cpus, info.goVersion)
	fmt.Fprintf(&b, "- Command: `%s` (in `bench/`); raw `go test` output in [%s](%s), readable by benchstat.\n", info.command, info.rawName, info.rawName)
	b.WriteString("- Each value is the median of the runs; *ratio* is how many times better typedcache is (client-go ÷ typedcache for costs, typedcache ÷ client-go for rates), so above 1 means typedcache wins; in the priority queue's and the controller's tables, against controller-runtime instead of client-go. *Noise* is the largest deviation of a single run from the median, on either side.\n")
	fmt.Fprintf(&b, "- The latency and controller rows run in %d separate processes, `-count 1` each: their value is the median of the process medians, their target applies to it, and the noise column gives the range of the processes' ratios (each side's range is under the table).\n", info.processes)
	b.WriteString("- Reflector and informer rows are on the **Kubernetes path**: typedcache reads the same in-memory client-go source as client-go, through `kube.SourceWithOptions`, and both copy the listed items out of the same `*corev1.ConfigMapList` (nothing is decoded on either side). The targets apply to these rows. The same rows with typedcache reading its own source of prebuilt objects are under [custom sources](#custom-sources), without targets.\n")
	b.WriteString("- Both sides store the same `*corev1.ConfigMap` values (name, namespace, 3 labels, resource version, 3 data entries of 32 bytes), or `*corev1.Pod` values of a few kilobytes where a row says Pods. What each workload does: [README.md](README.md#what-is-measured) and the benchmark's doc comment.\n\n")

	checks := growth(res)
	var targets, met int
	var missed []string
	for _, o := range outs {
		if !o.hasTarget() {
			continue
		}
		targets++
		if o.met() {
			met++
			continue
		}
		missed = append(missed, fmt.Sprintf("%s %s (%s): target %s, got %s", o.area, o.what, o.unit, o.target.text, describe(o)))
	}
	for _, g := range checks {
		targets++
		if g.met() {
			met++
			continue
		}
		got := "not measured"
		if g.measured {
			got = "typedcache " + formatRatio(spread(g.tc)) + ", client-go " + formatRatio(spread(g.cg))
		}
		missed = append(missed, fmt.Sprintf("%s: largest ÷ smallest ≤ %gx, got %s", g.what(), growthGoal, got))
	}
	fmt.Fprintf(&b, "**Targets met: %d of %d.**", met, targets)
	if len(missed) > 0 {
		b.WriteString(" Not met:\n\n")
		for _, m := range missed {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	b.WriteString("\n")

	area := ""
	var inArea []outcome
	for _, o := range outs {
		if o.area != area {
			writeAreaEnd(&b, res, area, inArea, checks)
			area, inArea = o.area, nil
			fmt.Fprintf(&b, "\n## %s\n\n", area)
			if area == serverArea {
				writeServerRun(&b, info.server)
			} else if r := areaRun(res, outs, area); r > 0 {
				writeLaterRun(&b, res.later[r-1])
			}
			b.WriteString(tableHeader(area))
		}
		inArea = append(inArea, o)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |",
			o.what, o.unit, cell(o, o.cg), cell(o, o.tc), ratioCell(o), targetCell(o), metCell(o), noiseCell(o))
		if withClientGo[area] {
			value, r := clientGoCells(res, o)
			fmt.Fprintf(&b, " %s | %s |", value, r)
		}
		b.WriteString("\n")
	}
	writeAreaEnd(&b, res, area, inArea, checks)
	if !slices.ContainsFunc(outs, func(o outcome) bool { return o.area == serverArea }) {
		b.WriteString(serverMissing)
	}
	if extra := unlisted(res); len(extra) > 0 {
		slices.Sort(extra)
		b.WriteString("\nBenchmarks measured but not in the tables: " + strings.Join(extra, ", ") + ".\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// areaRun returns the run the measured rows of area come from, when they
// all come from the same run; 0 (the first run) otherwise.
func areaRun(res *results, outs []outcome, area string) int {
	run := -1
	for _, o := range outs {
		if o.area != area || !o.measured {
			continue
		}
		r := res.runOf(o.bench)
		if run >= 0 && r != run {
			return 0
		}
		run = r
	}
	return max(run, 0)
}

// writeLaterRun states, under an area's heading, the run its rows come
// from when it is not the first of the raw output: a run of some
// benchmarks only, joined to a full run's output and redrawn with -from.
func writeLaterRun(b *strings.Builder, config map[string]string) {
	mode := "full sizes"
	if config[keyMode] == "quick" {
		mode = "**quick**: sizes divided by 10"
	}
	command := "go run ./cmd/report"
	if f := config[keyBench]; f != "" {
		command += " -bench '" + f + "'"
	}
	fmt.Fprintf(b, "Run: %s, commit `%s`, %s, `-count %s`, %s processes for the rows run in several; command `%s`, its raw output joined to the run above's and redrawn with `-from`.\n\n",
		orUnknown(config[keyDate]), orUnknown(config[keyCommit]), mode, orUnknown(config[keyCount]), orUnknown(config[keyProcesses]), command)
}

// writeAreaEnd writes what follows an area's table: the ranges of its rows
// measured in separate processes, the table of costs by size for the scale
// area, that of sharded replicas for the real-server area, and its notes.
func writeAreaEnd(b *strings.Builder, res *results, area string, outs []outcome, checks []growthCheck) {
	var ranges []string
	for _, o := range outs {
		if o.processes > 0 {
			ranges = append(ranges, fmt.Sprintf("- %s (%s), %d processes: %s %s–%s, typedcache %s–%s, ratio %s–%s.",
				o.what, o.unit, o.processes, baselineOf(area), formatValue(o.cgRange[0]), formatValue(o.cgRange[1]),
				formatValue(o.tcRange[0]), formatValue(o.tcRange[1]), formatRatio(o.ratioRange[0]), formatRatio(o.ratioRange[1])))
		}
	}
	if len(ranges) > 0 {
		b.WriteString("\nRanges of the process medians:\n\n" + strings.Join(ranges, "\n") + "\n")
	}
	switch area {
	case scaleArea:
		writeGrowth(b, checks)
	case serverArea:
		writeSharding(b, res)
	}
	writeNotes(b, area)
}

// writeNotes writes the notes of area, if any, after its table.
func writeNotes(b *strings.Builder, area string) {
	if len(notes[area]) == 0 {
		return
	}
	b.WriteString("\n")
	for _, n := range notes[area] {
		fmt.Fprintf(b, "- %s\n", n)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// describe states a row's numbers in one phrase, for the list of missed
// targets.
func describe(o outcome) string {
	if !o.measured {
		return "not measured"
	}
	return fmt.Sprintf("typedcache %s vs %s %s (ratio %s)", formatValue(o.tc), baselineOf(o.area), formatValue(o.cg), formatRatio(o.ratio))
}

func cell(o outcome, v float64) string {
	if !o.measured {
		return "—"
	}
	return formatValue(v)
}

func ratioCell(o outcome) string {
	if !o.measured {
		return "—"
	}
	return formatRatio(o.ratio)
}

func targetCell(o outcome) string {
	if !o.hasTarget() {
		return ""
	}
	return o.target.text
}

func metCell(o outcome) string {
	switch {
	case !o.hasTarget():
		return ""
	case !o.measured:
		return "not measured"
	case o.met():
		return "yes"
	}
	return "**no**"
}

func noiseCell(o outcome) string {
	if o.processes > 0 {
		return fmt.Sprintf("%d procs: %s–%s", o.processes, formatRatio(o.ratioRange[0]), formatRatio(o.ratioRange[1]))
	}
	if !o.measured || o.runs < 2 {
		return ""
	}
	return fmt.Sprintf("±%.0f%%", o.noise*100)
}

// formatValue prints v with three significant digits and an SI suffix.
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return trim3(v/1e9) + "G"
	case a >= 1e6:
		return trim3(v/1e6) + "M"
	case a >= 1e4:
		return trim3(v/1e3) + "k"
	}
	return trim3(v)
}

// trim3 prints v with three significant digits.
func trim3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// formatRatio prints a ratio as "2.31×", or "∞" for a zero cost.
func formatRatio(r float64) string {
	if math.IsInf(r, 1) {
		return "∞"
	}
	return trim3(r) + "×"
}
