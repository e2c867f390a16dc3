package main

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSplitName(t *testing.T) {
	tests := []struct {
		full, name, impl string
		ok               bool
	}{
		{"BenchmarkQueueAddGetDone/impl=typedcache-2", "BenchmarkQueueAddGetDone", "typedcache", true},
		{"BenchmarkX/keys=distinct/impl=client-go-16", "BenchmarkX/keys=distinct", "client-go", true},
		{"BenchmarkX/impl=client-go/n=10", "BenchmarkX/n=10", "client-go", true},
		{"BenchmarkX/n=10-2", "", "", false}, // no impl: not a comparison
	}
	for _, tc := range tests {
		name, impl, ok := splitName(tc.full)
		if name != tc.name || impl != tc.impl || ok != tc.ok {
			t.Errorf("splitName(%q) = %q, %q, %v; want %q, %q, %v", tc.full, name, impl, ok, tc.name, tc.impl, tc.ok)
		}
	}
}

const sampleRun = `goos: linux
goarch: amd64
pkg: github.com/typedcache/typedcache/bench/queue
cpu: Test CPU
BenchmarkQueueAddGetDone/keys=distinct/impl=typedcache-2   	 1000	 100000 ns/op	 60.0 ns/item	 0 B/op	 0 allocs/op
BenchmarkQueueAddGetDone/keys=distinct/impl=typedcache-2   	 1000	 100000 ns/op	 80.0 ns/item	 0 B/op	 0 allocs/op
BenchmarkQueueAddGetDone/keys=distinct/impl=typedcache-2   	 1000	 100000 ns/op	 70.0 ns/item	 0 B/op	 0 allocs/op
BenchmarkQueueAddGetDone/keys=distinct/impl=client-go-2    	 1000	 100000 ns/op	 180.0 ns/item	 2 B/op	 3 allocs/op
BenchmarkQueueAddGetDone/keys=distinct/impl=client-go-2    	 1000	 100000 ns/op	 170.0 ns/item	 2 B/op	 3 allocs/op
BenchmarkQueueAddGetDone/keys=distinct/impl=client-go-2    	 1000	 100000 ns/op	 190.0 ns/item	 2 B/op	 3 allocs/op
BenchmarkQueueProducersConsumers/impl=typedcache-2         	 1	 1000 ns/op	 1000 items/s
BenchmarkQueueProducersConsumers/impl=client-go-2          	 1	 1000 ns/op	 4000 items/s
--- FAIL: BenchmarkBroken
PASS
`

func TestParseAndEvaluate(t *testing.T) {
	res, err := parse(strings.NewReader(sampleRun))
	if err != nil {
		t.Fatal(err)
	}
	if res.cpu != "Test CPU" || res.goos != "linux" || res.goarch != "amd64" {
		t.Errorf("parse header = %q %q %q; want Test CPU, linux, amd64", res.cpu, res.goos, res.goarch)
	}
	if m, ok := res.median("BenchmarkQueueAddGetDone/keys=distinct", implTypedcache, "ns/item"); !ok || m != 70 {
		t.Errorf("median ns/item = %v, %v; want 70, true", m, ok)
	}
	if s := res.spread("BenchmarkQueueAddGetDone/keys=distinct", implTypedcache, "ns/item"); math.Abs(s-1.0/7) > 1e-9 {
		t.Errorf("spread = %v; want 1/7", s)
	}

	got := map[string]outcome{}
	for _, o := range evaluate(res) {
		got[o.bench+" "+o.unit] = o
	}
	tests := []struct {
		key      string
		measured bool
		ratio    float64
		met      bool
	}{
		{"BenchmarkQueueAddGetDone/keys=distinct ns/item", true, 180.0 / 70, true},
		{"BenchmarkQueueAddGetDone/keys=distinct allocs/op", true, math.Inf(1), true},
		{"BenchmarkQueueProducersConsumers items/s", true, 0.25, false},
		{"BenchmarkQueueAddRateLimited ns/item", false, 0, false},
	}
	for _, tc := range tests {
		o, ok := got[tc.key]
		if !ok {
			t.Errorf("no row %q", tc.key)
			continue
		}
		if o.measured != tc.measured || math.Abs(o.ratio-tc.ratio) > 1e-9 && !math.IsInf(tc.ratio, 1) || o.met() != tc.met {
			t.Errorf("row %q: measured %v, ratio %v, met %v; want %v, %v, %v", tc.key, o.measured, o.ratio, o.met(), tc.measured, tc.ratio, tc.met)
		}
	}

	var md, svg bytes.Buffer
	info := runInfo{date: "today", commit: "abc", goVersion: "go1.26", cpus: 2, count: 3, command: "go run ./cmd/report", svgName: svgName, rawName: rawName}
	if err := writeMarkdown(&md, info, res, evaluate(res)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Machine: Test CPU, linux/amd64, 2 CPUs; go1.26.",
		"4 producers × 4 consumers, 1M items (items/s): target ≥ 2x, got typedcache 1000 vs client-go 4000 (ratio 0.25×)",
		"| 4 producers × 4 consumers, 1M items | items/s | 4000 | 1000 | 0.25× | ≥ 2x | **no** |  |", // one run: no noise figure
		"- AddAfter lateness: one producer adds",                                                     // the queue's note, after its table
		"| Add/Get/Done, 1000 distinct keys | ns/item | 180 | 70.0 | 2.57× | ≥ 1.5x | yes | ±14% |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md.String())
		}
	}
	if err := writeSVG(&svg, info, evaluate(res)); err != nil {
		t.Fatal(err)
	}
	if s := svg.String(); !strings.HasPrefix(s, "<svg") || !strings.Contains(s, "0.25×") || strings.Count(s, "<rect") != 4 {
		t.Errorf("SVG lacks the three measured bars and their values:\n%s", s)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.00123, "0.00123"}, {1.5, "1.50"}, {12.34, "12.3"}, {999, "999"},
		{12345, "12.3k"}, {2.5e6, "2.50M"}, {3e9, "3.00G"},
	}
	for _, tc := range tests {
		if got := formatValue(tc.v); got != tc.want {
			t.Errorf("formatValue(%v) = %q; want %q", tc.v, got, tc.want)
		}
	}
	if got := formatRatio(math.Inf(1)); got != "∞" {
		t.Errorf("formatRatio(+Inf) = %q; want ∞", got)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	want := runInfo{date: "2026-01-02 03:04 UTC", commit: "abc123", goVersion: "go1.26.8", cpus: 2, quick: true, count: 1, command: "go run ./cmd/report -quick"}
	res, err := parse(strings.NewReader(want.header() + sampleRun))
	if err != nil {
		t.Fatal(err)
	}
	got := runInfo{date: "now", commit: "other", goVersion: "go0", cpus: 64, count: 5, command: "go run ./cmd/report"}
	got.restore(res.config)
	if got != want {
		t.Errorf("restore(parse(header)) = %+v; want %+v", got, want)
	}
}

// separateRun is the output of the latency rows in three separate
// processes, with two samples in the last.
const separateRun = `report-process: 1
BenchmarkInformerLatency/rate=10k/path=kube/impl=typedcache-2 	 1	 1000 ns/op	 20000 p99-ns
BenchmarkInformerLatency/rate=10k/path=kube/impl=client-go-2  	 1	 1000 ns/op	 40000 p99-ns
report-process: 2
BenchmarkInformerLatency/rate=10k/path=kube/impl=typedcache-2 	 1	 1000 ns/op	 10000 p99-ns
BenchmarkInformerLatency/rate=10k/path=kube/impl=client-go-2  	 1	 1000 ns/op	 60000 p99-ns
report-process: 3
BenchmarkInformerLatency/rate=10k/path=kube/impl=typedcache-2 	 1	 1000 ns/op	 30000 p99-ns
BenchmarkInformerLatency/rate=10k/path=kube/impl=typedcache-2 	 1	 1000 ns/op	 50000 p99-ns
BenchmarkInformerLatency/rate=10k/path=kube/impl=client-go-2  	 1	 1000 ns/op	 200000 p99-ns
report-process: 0
`

func TestSeparateProcesses(t *testing.T) {
	res, err := parse(strings.NewReader(sampleRun + separateRun))
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	for _, x := range evaluate(res) {
		if x.bench == "BenchmarkInformerLatency/rate=10k/path=kube" && x.unit == "p99-ns" {
			o = x
		}
	}
	// Process medians: typedcache 20k, 10k, 40k; client-go 40k, 60k, 200k.
	want := outcome{row: o.row, cg: 60000, tc: 20000, measured: true, ratio: 3, runs: 3, processes: 3,
		cgRange: [2]float64{40000, 200000}, tcRange: [2]float64{10000, 40000}, ratioRange: [2]float64{2, 6}}
	if o.target == nil || o.cg != want.cg || o.tc != want.tc || o.ratio != want.ratio || o.processes != want.processes ||
		o.cgRange != want.cgRange || o.tcRange != want.tcRange || o.ratioRange != want.ratioRange || !o.met() {
		t.Errorf("latency outcome = %+v; want %+v, met", o, want)
	}

	var md bytes.Buffer
	info := runInfo{date: "today", commit: "abc", goVersion: "go1.26", cpus: 2, count: 1, processes: 3, command: "go run ./cmd/report", svgName: svgName, rawName: rawName}
	if err := writeMarkdown(&md, info, res, evaluate(res)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"| send-to-handler latency at 10k events/s | p99-ns | 60.0k | 20.0k | 3.00× | ≥ 3x | yes | 3 procs: 2.00×–6.00× |",
		"- send-to-handler latency at 10k events/s (p99-ns), 3 processes: client-go 40.0k–200k, typedcache 10.0k–40.0k, ratio 2.00×–6.00×.",
		"The latency and controller rows run in 3 separate processes",
	} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("RESULTS.md lacks %q:\n%s", w, md.String())
		}
	}
}

func TestSeparateFilter(t *testing.T) {
	const name = "BenchmarkInformerLatency"
	tests := []struct {
		filter, want string
		ok           bool
	}{
		{".", "^BenchmarkInformerLatency$", true},
		{"InformerLatency|InformerWrites", "^BenchmarkInformerLatency$", true},
		{"Latency/rate=10k/path=kube", "^BenchmarkInformerLatency$/rate=10k/path=kube", true},
		{"Informer[/]Latency", "", false}, // a bracketed slash does not split; the pattern matches no name
		{"Informer(Latency|Sync)/path=(kube|direct/x)", "^BenchmarkInformerLatency$/path=(kube|direct/x)", true},
		{"BenchmarkQueue", "", false},
		{"[", "", false}, // not a regular expression
	}
	for _, tc := range tests {
		got, ok := separateFilter(tc.filter, name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("separateFilter(%q, %q) = %q, %v; want %q, %v", tc.filter, name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCustomSources(t *testing.T) {
	got := withCustomSources([]row{
		{"queue", "BenchmarkQueueX", "queue row", "ns/item", ratioAtLeast(2)},
		{"informer", "BenchmarkInformerX/n=1/path=kube", "informer row", "ns/object", ratioAtLeast(3)},
		{scaleArea, "BenchmarkInformerY/path=kube", "scale row", "ns/object", nil},
	})
	if len(got) != 4 {
		t.Fatalf("withCustomSources returned %d rows; want 4: %+v", len(got), got)
	}
	c := got[3]
	if c.area != customArea || c.bench != "BenchmarkInformerX/n=1/path=direct" || c.what != "informer: informer row" || c.unit != "ns/object" || c.target != nil {
		t.Errorf("custom row = %+v; want the informer row on path=direct, in %q, without a target", c, customArea)
	}
}

func TestGrowth(t *testing.T) {
	var raw strings.Builder
	for i, s := range growthSizes {
		// typedcache: ns/object 100, 120, 140 (1.4x, met); heap 1000, 1000, 2000 (2x, missed).
		fmt.Fprintf(&raw, "%s/impl=typedcache-2 1 1 ns/op %d ns/object %d heap-B/object\n", s.bench, 100+20*i, []int{1000, 1000, 2000}[i])
		fmt.Fprintf(&raw, "%s/impl=client-go-2 1 1 ns/op %d ns/object %d heap-B/object\n", s.bench, 300, 1200)
	}
	res, err := parse(strings.NewReader(raw.String()))
	if err != nil {
		t.Fatal(err)
	}
	checks := growth(res)
	if len(checks) != 2 || !checks[0].met() || checks[1].met() || !checks[1].measured {
		t.Errorf("growth = %+v; want ns/object met and heap-B/object measured but missed", checks)
	}
	var b strings.Builder
	writeGrowth(&b, checks)
	for _, w := range []string{
		"| ns/object | typedcache | 100 | 120 | 140 | 1.40× | ≤ 1.5x | yes |",
		"| heap-B/object | typedcache | 1000 | 1000 | 2000 | 2.00× | ≤ 1.5x | **no** |",
		"| ns/object | client-go | 300 | 300 | 300 | 1.00× |  |  |",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("growth table lacks %q:\n%s", w, b.String())
		}
	}
}

// serverRunOutput is a real-server run: its facts, two rows, and the
// sharding benchmark.
const serverRunOutput = `report-server-date: 2026-11-26 04:00 UTC
report-server-commit: def456
report-server-mode: full
report-server-count: 1
report-server-benchtime: 2s
BenchmarkUpdates/kind=configmaps/content=json/fields=all/impl=typedcache-2 	 1	 1000 ns/op	 20000 cpu-ns/update
BenchmarkUpdates/kind=configmaps/content=json/fields=all/impl=client-go-2 	 1	 1000 ns/op	 80000 cpu-ns/update
BenchmarkInitialSync/kind=pods/content=protobuf/mode=streaming/fields=all/impl=typedcache-2 	 1	 1000 ns/op	 12000 heap-B/object
BenchmarkInitialSync/kind=pods/content=protobuf/mode=streaming/fields=all/impl=client-go-2 	 1	 1000 ns/op	 15000 heap-B/object
BenchmarkShardReplicas/replicas=1/impl=typedcache-2 	 1	 1000 ns/op	 90.0 reconciles/s
BenchmarkShardReplicas/replicas=2/impl=typedcache-2 	 1	 1000 ns/op	 180 reconciles/s
BenchmarkShardReplicas/replicas=3/impl=typedcache-2 	 1	 1000 ns/op	 250 reconciles/s
`

// The real-server rows come with their own run's facts, are counted with
// the targets when measured, and are left out, with a word on why, when
// the run had no server.
func TestServerRows(t *testing.T) {
	report := func(raw string) (string, []outcome) {
		t.Helper()
		res, err := parse(strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var info runInfo
		info.restore(res.config)
		outs := withoutUnmeasuredServer(evaluate(res))
		var md strings.Builder
		if err := writeMarkdown(&md, info, res, outs); err != nil {
			t.Fatal(err)
		}
		return md.String(), outs
	}
	with, outs := report(sampleRun + serverRunOutput)
	for _, want := range []string{
		"\n## real server\n\nRun: 2026-11-26 04:00 UTC, commit `def456`, full sizes, `-count 1`, iterations for `-benchtime 2s` each,",
		"| 10,000 updates of 100 ConfigMaps, json, replayed | cpu-ns/update | 80.0k | 20.0k | 4.00× | ≤ 0.5x client-go | yes |",
		"initial sync, 5,000 Pods, protobuf, streaming list: heap per cached object (heap-B/object): target ≤ 0.7x client-go, got typedcache 12.0k vs client-go 15.0k (ratio 1.25×)",
		"| replicas | reconciles/s | × one replica |\n|--:|--:|--:|\n| 1 | 90.0 | 1.00× |\n| 2 | 180 | 2.00× |\n| 3 | 250 | 2.78× |\n",
	} {
		if !strings.Contains(with, want) {
			t.Errorf("RESULTS.md with a server run lacks %q:\n%s", want, with)
		}
	}
	if strings.Contains(with, "Not measured in this run: no server") {
		t.Error("RESULTS.md with a server run says there was none")
	}
	if got := len(onlyServer(slices.Clone(outs))); got != len(serverRows()) {
		t.Errorf("onlyServer kept %d rows, want the %d real-server rows", got, len(serverRows()))
	}
	var headline strings.Builder
	writeHeadline(&headline, runInfo{}, outs)
	if !strings.Contains(headline.String(), "| real server: 10,000 updates of 100 ConfigMaps, json, replayed | cpu-ns/update |") {
		t.Errorf("the headline lacks the real-server row:\n%s", headline.String())
	}

	without, outs := report(sampleRun)
	if !strings.Contains(without, "## real server\n\nNot measured in this run: no server.") {
		t.Errorf("RESULTS.md without a server run does not say so:\n%s", without)
	}
	if len(onlyServer(slices.Clone(outs))) != 0 || strings.Contains(without, "| initial sync, 5,000") {
		t.Error("unmeasured real-server rows are in the tables")
	}
	headline.Reset()
	writeHeadline(&headline, runInfo{}, outs)
	if strings.Contains(headline.String(), "real server") {
		t.Errorf("the headline shows unmeasured real-server rows:\n%s", headline.String())
	}
}

// A real-server run in processes of their own says so; one from before
// the key says -count.
func TestServerRunProcesses(t *testing.T) {
	for _, c := range []struct {
		config map[string]string
		want   string
	}{
		{map[string]string{keyServerDate: "d", keyServerCount: "3", keyServerTime: "2s", keyServerProcs: "true"},
			"3 processes (`-count 1` each; a row's value is the median of its 3 runs)"},
		{map[string]string{keyServerDate: "d", keyServerCount: "3", keyServerTime: "2s"}, "`-count 3`"},
	} {
		run := serverRunOf(c.config)
		var b strings.Builder
		writeServerRun(&b, run)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%v: %q lacks %q", c.config, b.String(), c.want)
		}
		if again := serverRunOf(configOf(t, run.header())); again != run {
			t.Errorf("the header of %+v reads back as %+v", run, again)
		}
	}
}

// configOf parses the configuration lines of raw.
func configOf(t *testing.T, raw string) map[string]string {
	t.Helper()
	res, err := parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return res.config
}

// controllerRun is a later run of the controller rows alone, in two
// processes, to be joined to a full run's output.
const controllerRun = `report-date: 2026-02-03 04:05 UTC
report-commit: def456
report-go: go1.26.8
report-cpus: 2
report-mode: full
report-count: 10
report-processes: 2
report-bench: BenchmarkController
report-process: 1
BenchmarkControllerReconciles/impl=controller-runtime-2 	 1	 1000 ns/op	 20000 reconciles/s	 50 allocs/reconcile
BenchmarkControllerReconciles/impl=typedcache-2         	 1	 1000 ns/op	 100000 reconciles/s	 5 allocs/reconcile
report-process: 2
BenchmarkControllerReconciles/impl=typedcache-2         	 1	 1000 ns/op	 50000 reconciles/s	 6 allocs/reconcile
BenchmarkControllerReconciles/impl=controller-runtime-2 	 1	 1000 ns/op	 25000 reconciles/s	 60 allocs/reconcile
report-process: 0
`

// TestJoinedRuns checks a full run's output joined with a later run of
// some rows (-from): the report keeps the first run's facts, states the
// later run's under its area's heading, and keeps the processes of the
// two runs apart.
func TestJoinedRuns(t *testing.T) {
	first := runInfo{date: "2026-01-02 03:04 UTC", commit: "abc123", goVersion: "go1.26.8", cpus: 2, count: 10, processes: 3, command: "go run ./cmd/report"}
	res, err := parse(strings.NewReader(first.header() + sampleRun + separateRun + controllerRun))
	if err != nil {
		t.Fatal(err)
	}
	info := runInfo{svgName: svgName, rawName: rawName}
	info.restore(res.config)
	if info.date != first.date || info.commit != first.commit || info.processes != 3 || info.command != first.command {
		t.Errorf("restore = %+v; want the first run's %+v", info, first)
	}
	if got := res.runOf("BenchmarkControllerReconciles"); got != 1 {
		t.Errorf("runOf(controller) = %d; want 1", got)
	}
	if got := slices.Sorted(maps.Keys(res.processMedians("BenchmarkControllerReconciles", implTypedcache, "reconciles/s"))); !slices.Equal(got, []int{4, 5}) {
		t.Errorf("controller processes = %v; want [4 5], after the first run's 3", got)
	}
	outs := evaluate(res)
	var o outcome
	for _, x := range outs {
		if x.bench == "BenchmarkControllerReconciles" && x.unit == "allocs/reconcile" {
			o = x
		}
	}
	if o.cg != 55 || o.tc != 5.5 || o.processes != 2 || !o.met() {
		t.Errorf("allocs/reconcile outcome = %+v; want controller-runtime 55, typedcache 5.5, 2 processes, met", o)
	}

	var md bytes.Buffer
	if err := writeMarkdown(&md, info, res, outs); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"- Run: 2026-01-02 03:04 UTC, commit `abc123`",
		"## controller vs controller-runtime\n\nRun: 2026-02-03 04:05 UTC, commit `def456`, full sizes, `-count 10`, 2 processes for the rows run in several; command `go run ./cmd/report -bench 'BenchmarkController'`",
		"| workload | unit | controller-runtime | typedcache | ratio | target | met | noise |\n",
		"| reconciles/s | 22.5k | 75.0k | 3.33× | ≥ 3x | yes | 2 procs: 2.00×–5.00× |",
		"| allocs/reconcile | 55.0 | 5.50 | 10.0× | ≤ 0.5x controller-runtime | yes | 2 procs: 10.0×–10.0× |",
		"(reconciles/s), 2 processes: controller-runtime 20.0k–25.0k, typedcache 50.0k–100k, ratio 2.00×–5.00×.",
	} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("RESULTS.md lacks %q:\n%s", w, md.String())
		}
	}
	if strings.Contains(md.String(), "## queue\n\nRun:") {
		t.Errorf("the first run's areas state a run of their own:\n%s", md.String())
	}
}
