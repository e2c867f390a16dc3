package main

import (
	"bytes"
	"math"
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

const sample = `goos: linux
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
	res, err := parse(strings.NewReader(sample))
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
	res, err := parse(strings.NewReader(want.header() + sample))
	if err != nil {
		t.Fatal(err)
	}
	got := runInfo{date: "now", commit: "other", goVersion: "go0", cpus: 64, count: 5, command: "go run ./cmd/report"}
	got.restore(res.config)
	if got != want {
		t.Errorf("restore(parse(header)) = %+v; want %+v", got, want)
	}
}
