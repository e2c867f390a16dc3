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
	cpu     string
	goos    string
	goarch  string
	config  map[string]string // the report's own "report-*: value" lines
	samples map[string]map[string]map[string][]float64
}

// parse reads the output of go test -bench.
func parse(r io.Reader) (*results, error) {
	res := &results{config: make(map[string]string), samples: make(map[string]map[string]map[string][]float64)}
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
			res.addLine(line)
		case strings.HasPrefix(line, "report-"):
			if k, v, ok := strings.Cut(line, ": "); ok {
				res.config[k] = v
			}
		}
	}
	return res, sc.Err()
}

// addLine records one result line: name, iterations, then value-unit
// pairs. Lines that are not results (a benchmark that logged, or failed)
// are ignored.
func (res *results) addLine(line string) {
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
		byImpl = make(map[string]map[string][]float64)
		res.samples[name] = byImpl
	}
	byUnit := byImpl[impl]
	if byUnit == nil {
		byUnit = make(map[string][]float64)
		byImpl[impl] = byUnit
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			continue
		}
		byUnit[f[i+1]] = append(byUnit[f[i+1]], v)
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

// median returns the median of one benchmark's samples of unit for impl,
// and whether there were any.
func (res *results) median(name, impl, unit string) (float64, bool) {
	vs := res.samples[name][impl][unit]
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
	for _, v := range res.samples[name][impl][unit] {
		d := v/m - 1
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
	}
	return worst
}
