package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A separateBench is a benchmark whose figures move from one process to
// the next more than within one (latency tails, which depend on how the
// scheduler and the machine treat each process): it is left out of the
// main run and run instead in several processes of its own, -count 1
// each, and each of its rows reports the median of the process medians,
// with their range.
type separateBench struct {
	pkg  string // package directory in the module, "./informer"
	name string // top-level benchmark name
}

// separate lists the benchmarks run in separate processes.
var separate = []separateBench{
	{"./informer", "BenchmarkInformerLatency"},
	{"./controller", "BenchmarkControllerReconciles"},
	{"./controller", "BenchmarkControllerStart"},
	{"./controller", "BenchmarkControllerIdleManager"},
}

// processEnv names the variable that gives each separate process its
// number, so that a benchmark can alternate the order of its
// implementations from one process to the next (bench/controller does).
const processEnv = "BENCH_PROCESS"

// keyProcess introduces, in the raw output, the output of separate process
// N: "report-process: N". Process 0 is the main run.
const keyProcess = "report-process"

// skipSeparate returns the go test -skip pattern that leaves the separate
// benchmarks out of the main run.
func skipSeparate() string {
	names := make([]string, len(separate))
	for i, s := range separate {
		names[i] = s.name
	}
	return "^(" + strings.Join(names, "|") + ")$"
}

// separateFilter returns the -bench pattern that selects, of the
// benchmarks filter selects, those of the top-level benchmark name, and
// whether there are any: filter's first level must match name, and its
// further levels, if any, apply below it.
func separateFilter(filter, name string) (string, bool) {
	first, rest, nested := splitLevel(filter)
	re, err := regexp.Compile(first)
	if err != nil || !re.MatchString(name) {
		return "", false
	}
	pattern := "^" + name + "$"
	if nested {
		pattern += "/" + rest
	}
	return pattern, true
}

// splitLevel splits a -bench pattern at its first slash outside brackets
// and parentheses, as go test splits it into per-level patterns.
func splitLevel(pattern string) (first, rest string, nested bool) {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				return pattern[:i], pattern[i+1:], true
			}
		}
	}
	return pattern, "", false
}

// runSeparate runs each separate benchmark that filter selects in
// processes processes of its own, -count 1 each, from a test binary built
// once, and returns their outputs, each introduced by its
// "report-process: N" line. Output is copied to stdout as it comes.
func runSeparate(dir string, processes int, quick bool, benchtime, filter string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var buf bytes.Buffer
	out := io.MultiWriter(&buf, os.Stdout)
	process := 0
	for i, s := range separate {
		pattern, ok := separateFilter(filter, s.name)
		if !ok {
			continue
		}
		bin := filepath.Join(tmp, fmt.Sprintf("bench%d.test", i))
		build := exec.Command("go", "test", "-c", "-o", bin, s.pkg)
		build.Dir = dir
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return buf.Bytes(), fmt.Errorf("go test -c %s: %w", s.pkg, err)
		}
		args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.benchmem",
			"-test.count", "1", "-test.benchtime", benchtime, "-test.timeout", "30m"}
		if quick {
			args = append(args, "-test.short")
		}
		for range processes {
			process++
			fmt.Fprintf(out, "%s: %d\n", keyProcess, process)
			fmt.Fprintf(os.Stderr, "%s %s (process %d)\n", s.pkg, strings.Join(args, " "), process)
			cmd := exec.Command(bin, args...)
			cmd.Dir = filepath.Join(dir, s.pkg)
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", processEnv, process))
			cmd.Stdout = out
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				return buf.Bytes(), fmt.Errorf("%s %s: %w", s.pkg, s.name, err)
			}
		}
	}
	if process > 0 {
		// Later results, if any, belong to no separate process.
		fmt.Fprintf(out, "%s: 0\n", keyProcess)
	}
	return buf.Bytes(), nil
}
