package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const priorityRun = `BenchmarkPriorityQueueThroughput/impl=typedcache-2         	 10	 1 ns/op	 900000 items/s
BenchmarkPriorityQueueThroughput/impl=controller-runtime-2 	 10	 1 ns/op	 300000 items/s
BenchmarkPriorityQueueThroughput/impl=client-go-2          	 10	 1 ns/op	 1800000 items/s
BenchmarkPriorityQueueRestart/impl=typedcache-2            	 1	 1 ns/op	 700 live-p99-ns
BenchmarkPriorityQueueRestart/impl=controller-runtime-2    	 1	 1 ns/op	 600 live-p99-ns
BenchmarkPriorityQueueRestart/impl=client-go-2             	 1	 1 ns/op	 7000 live-p99-ns
BenchmarkPriorityQueueStarvation/backlog=30k/impl=typedcache-2         	 1	 1 ns/op	 0 low-unserved
BenchmarkPriorityQueueStarvation/backlog=30k/impl=controller-runtime-2 	 1	 1 ns/op	 10 low-unserved
`

// TestPriorityBaseline checks that the priority queue's rows compare
// typedcache with controller-runtime, and show client-go beside.
func TestPriorityBaseline(t *testing.T) {
	res, err := parse(strings.NewReader(priorityRun))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]outcome{}
	for _, o := range evaluate(res) {
		got[o.bench+" "+o.unit] = o
	}
	tests := []struct {
		key             string
		baseline, ratio float64
		met             bool
	}{
		{"BenchmarkPriorityQueueThroughput items/s", 300000, 3, true},
		{"BenchmarkPriorityQueueRestart live-p99-ns", 600, 600.0 / 700, false},
		{"BenchmarkPriorityQueueStarvation/backlog=30k low-unserved", 10, math.Inf(1), true},
	}
	for _, tc := range tests {
		o := got[tc.key]
		if !o.measured || o.cg != tc.baseline || o.ratio != tc.ratio || o.met() != tc.met {
			t.Errorf("row %q: measured %v, baseline %v, ratio %v, met %v; want true, %v, %v, %v", tc.key, o.measured, o.cg, o.ratio, o.met(), tc.baseline, tc.ratio, tc.met)
		}
	}

	var md bytes.Buffer
	info := runInfo{date: "today", commit: "abc", goVersion: "go1.26", cpus: 2, count: 1, command: "go run ./cmd/report", svgName: svgName, rawName: rawName}
	if err := writeMarkdown(&md, info, res, evaluate(res)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| workload | unit | controller-runtime | typedcache | ratio | target | met | noise | client-go | ratio vs client-go |",
		"| items/s | 300k | 900k | 3.00× | ≥ 2x | yes |  | 1.80M | 0.5× |",
		"| live-p99-ns | 600 | 700 | 0.857× | ≤ controller-runtime | **no** |  | 7000 | 10.0× |",
		"| low-unserved | 10.0 | 0 | ∞ | all served | yes |  | — | — |", // client-go not measured
		"(live-p99-ns): target ≤ controller-runtime, got typedcache 700 vs controller-runtime 600 (ratio 0.857×)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md.String())
		}
	}
}
