package main

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The two implementations, as named in the impl= component of every
// benchmark name.
const (
	implClientGo   = "client-go"
	implTypedcache = "typedcache"
)

// results holds the samples of one run of the suite: for each benchmark
// (its name without the impl= component and without the GOMAXPROCS
// suffix), for each implementation, for each unit, one value per count.
type results struct {
	cpu    string
	goos   string
	goarch string
	config map[string]string // the report's own "report-*: value" lines
	// later holds the configuration lines of each run joined after the
	// first (-from a concatenation of raw outputs): later[0] is run 1's.
	later   []map[string]string
	samples map[string]map[string]map[string][]sample
}

// A sample is one value of a benchmark's unit, and the process it came
// from: 0 for the main run of the suite, 1, 2, ... for the separate
// processes of the rows that are run in several (see separate), which the
// raw output introduces with a "report-process: N" line; and the run it
// came from, 0 for the first of a raw output that joins several.
// Processes are numbered across runs: those of a later run follow those
// of the runs before it.
type sample struct {
	value   float64
	process int
	run     int
}

// parse reads the output of go test -bench.
func parse(r io.Reader) (*results, error) {
	res := &results{config: make(map[string]string), samples: make(map[string]map[string]map[string][]sample)}
	// offset is the number of processes of the runs before this one.
	process, run, offset, lastProcess := 0, 0, 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "cpu: "):
			res.cpu = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "goos: "):
			res.goos = strings.TrimPrefix(line, "goos: ")
		case strings.HasPrefix(line, "goarch: "):
			res.goarch = strings.TrimPrefix(line, "goarch: ")
		case strings.HasPrefix(line, "Benchmark"):
			res.addLine(line, process, run)
		case strings.HasPrefix(line, keyProcess+": "):
			process, _ = strconv.Atoi(strings.TrimPrefix(line, keyProcess+": "))
			if process > 0 {
				process += offset
				lastProcess = max(lastProcess, process)
			}
		case strings.HasPrefix(line, "report-"):
			k, v, ok := strings.Cut(line, ": ")
			if !ok {
				continue
			}
			if _, seen := res.config[keyDate]; k == keyDate && seen {
				// The header of a run joined after the first.
				run++
				offset, process = lastProcess, 0
				res.later = append(res.later, make(map[string]string))
			}
			if run > 0 && !strings.HasPrefix(k, keyServer) {
				res.later[run-1][k] = v
			} else {
				res.config[k] = v
			}
		}
	}
	return res, sc.Err()
}

// addLine records one result line: name, iterations, then value-unit
// pairs, from the given process and run. Lines that are not results (a benchmark
// that logged, or failed) are ignored.
func (res *results) addLine(line string, process, run int) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 {
		return
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return
	}
	name, impl, ok := splitName(f[0])
	if !ok {
		return
	}
	byImpl := res.samples[name]
	if byImpl == nil {
		byImpl = make(map[string]map[string][]sample)
		res.samples[name] = byImpl
	}
	byUnit := byImpl[impl]
	if byUnit == nil {
		byUnit = make(map[string][]sample)
		byImpl[impl] = byUnit
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			continue
		}
		byUnit[f[i+1]] = append(byUnit[f[i+1]], sample{v, process, run})
	}
}

// splitName removes the impl= component and the -GOMAXPROCS suffix from a
// benchmark name: "BenchmarkX/impl=client-go/n=10-2" gives "BenchmarkX/n=10"
// and "client-go".
func splitName(full string) (name, impl string, ok bool) {
	if i := strings.LastIndexByte(full, '-'); i > 0 {
		if _, err := strconv.Atoi(full[i+1:]); err == nil {
			full = full[:i]
		}
	}
	parts := strings.Split(full, "/")
	kept := parts[:0]
	for _, p := range parts {
		if v, found := strings.CutPrefix(p, "impl="); found {
			impl = v
			continue
		}
		kept = append(kept, p)
	}
	if impl == "" {
		return "", "", false
	}
	return strings.Join(kept, "/"), impl, true
}

// runOf returns the run one benchmark's samples come from: the latest,
// if several measured it.
func (res *results) runOf(name string) int {
	run := 0
	for _, byUnit := range res.samples[name] {
		for _, samples := range byUnit {
			for _, s := range samples {
				run = max(run, s.run)
			}
		}
	}
	return run
}

// values returns one benchmark's values of unit for impl.
func (res *results) values(name, impl, unit string) []float64 {
	var vs []float64
	for _, s := range res.samples[name][impl][unit] {
		vs = append(vs, s.value)
	}
	return vs
}

// median returns the median of one benchmark's samples of unit for impl,
// and whether there were any.
func (res *results) median(name, impl, unit string) (float64, bool) {
	return median(res.values(name, impl, unit))
}

// processMedians returns, for each separate process (numbered from 1)
// that measured one benchmark's unit for impl, the median of its samples.
func (res *results) processMedians(name, impl, unit string) map[int]float64 {
	byProcess := make(map[int][]float64)
	for _, s := range res.samples[name][impl][unit] {
		if s.process > 0 {
			byProcess[s.process] = append(byProcess[s.process], s.value)
		}
	}
	medians := make(map[int]float64, len(byProcess))
	for p, vs := range byProcess {
		medians[p], _ = median(vs)
	}
	return medians
}

// median returns the median of vs, and whether there were any.
func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// spread returns the largest relative deviation of the samples from their
// median, as a fraction (0.05 is ±5%).
func (res *results) spread(name, impl, unit string) float64 {
	m, ok := res.median(name, impl, unit)
	if !ok || m == 0 {
		return 0
	}
	var worst float64
	for _, v := range res.values(name, impl, unit) {
		d := v/m - 1
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
	}
	return worst
}
