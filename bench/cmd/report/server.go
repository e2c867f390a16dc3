package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// serverArea holds the rows measured against a real kube-apiserver by the
// kube module's benchmarks (kube/integration): decoding, HTTP and garbage
// collection included, both libraries reading through client-go's typed
// clients.
const serverArea = "real server"

// serverEnv names the kubeconfig of a running server, as
// scripts/kube-apiserver/cluster prints it; without it there is no
// server to measure against.
const serverEnv = "TYPEDCACHE_KUBECONFIG"

// Server runs: whether the report measures against a real server.
const (
	serverAuto = "auto" // when serverEnv is set
	serverOff  = "off"
	serverOnly = "only" // the real-server rows alone, for CI's server stage
)

// Keys of the configuration lines that describe the real-server run,
// which may come from another run than the rest (see -from).
const (
	keyServer       = "report-server-" // the prefix of them all
	keyServerDate   = "report-server-date"
	keyServerCommit = "report-server-commit"
	keyServerMode   = "report-server-mode"
	keyServerCount  = "report-server-count"
	keyServerTime   = "report-server-benchtime"
	keyServerProcs  = "report-server-processes"
)

// serverRun describes the run the real-server rows come from.
type serverRun struct {
	date, commit, mode string
	count              int    // runs of each row
	processes          bool   // each run in a process of its own (-count 1)
	benchtime          string // go test -benchtime
}

func (s serverRun) header() string {
	return fmt.Sprintf("%s: %s\n%s: %s\n%s: %s\n%s: %d\n%s: %s\n%s: %t\n",
		keyServerDate, s.date, keyServerCommit, s.commit, keyServerMode, s.mode, keyServerCount, s.count,
		keyServerTime, s.benchtime, keyServerProcs, s.processes)
}

// serverRunOf reads the real-server run's facts from the configuration
// lines of a raw output.
func serverRunOf(config map[string]string) serverRun {
	s := serverRun{date: config[keyServerDate], commit: config[keyServerCommit], mode: config[keyServerMode], benchtime: config[keyServerTime]}
	if s.date != "" && s.benchtime == "" {
		s.benchtime = "1x" // runs that predate the key ran one iteration each
	}
	fmt.Sscan(config[keyServerCount], &s.count)
	s.processes = config[keyServerProcs] == "true" // earlier runs: -count in one process
	return s
}

// measureServer reports whether this run measures against a real server.
func measureServer(mode string) (bool, error) {
	switch mode {
	case serverOff:
		return false, nil
	case serverAuto:
		return os.Getenv(serverEnv) != "", nil
	case serverOnly:
		if os.Getenv(serverEnv) == "" {
			return false, fmt.Errorf("-server only needs a running server: start one with scripts/kube-apiserver/cluster start and export what it prints (%s, ...)", serverEnv)
		}
		return true, nil
	}
	return false, fmt.Errorf("-server %q: want %s, %s or %s", mode, serverAuto, serverOff, serverOnly)
}

// runServer runs the kube module's real-server benchmarks count times,
// each time in a process of its own, and returns their output introduced
// by the run's facts. It copies the output to stdout as it comes. An
// initial sync of 5,000 objects, or 10,000 updates, is one iteration; a
// full run repeats it for a few seconds (the CPU time of one iteration
// varies with the garbage collections that happen to fall in it), a
// quick run does it once. One process per run measures the two
// libraries' rows of a run one after the other, so that a slow spell of
// the shared machine falls on both, where go test's -count would run each
// row count times before the next.
func runServer(benchDir string, quick bool, count int, filter string) ([]byte, error) {
	run := serverRun{date: time.Now().UTC().Format("2006-01-02 15:04 MST"), commit: commit(), mode: "full",
		count: count, processes: true, benchtime: "2s"}
	if quick {
		run.mode, run.benchtime = "quick", "1x"
	}
	var buf bytes.Buffer
	buf.WriteString(run.header())
	args := []string{"test", "-run", "^$", "-bench", filter, "-benchmem", "-count", "1",
		"-benchtime", run.benchtime, "-timeout", "90m"}
	if quick {
		args = append(args, "-short")
	}
	args = append(args, "./integration/")
	for i := range count {
		fmt.Fprintf(os.Stderr, "(in kube/, run %d of %d) go %s\n", i+1, count, strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Dir = filepath.Join(benchDir, "..", "kube")
		cmd.Stdout = io.MultiWriter(&buf, os.Stdout)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return buf.Bytes(), fmt.Errorf("real-server benchmarks: %w", err)
		}
	}
	return buf.Bytes(), nil
}

// serverRows are the rows of the real-server benchmarks. The targets are
// CPU per event (the process's user and system time, so decoding, HTTP and
// garbage collection on every goroutine count) and heap per cached object
// with every field kept, on protobuf and JSON; throughput, and CBOR (which
// both libraries decode through client-go), are reported without a
// target, since in a cluster the server sets the pace.
func serverRows() []row {
	type kind struct{ name, label, fields string }
	kinds := []kind{
		{"configmaps", "ConfigMaps", "all"},
		{"pods", "Pods", "all"},
		{"pods", "Pods without managedFields", "nomanaged"},
	}
	var rs []row
	for _, k := range kinds {
		for _, content := range serverContents {
			all := k.fields == "all" && content != "cbor"
			for _, mode := range []string{"streaming", "classic"} {
				bench := fmt.Sprintf("BenchmarkInitialSync/kind=%s/content=%s/mode=%s/fields=%s", k.name, content, mode, k.fields)
				what := fmt.Sprintf("initial sync, 5,000 %s, %s, %s list", k.label, content, mode)
				rs = append(rs,
					row{serverArea, bench, what, "cpu-ns/object", costIf(all, 0.5)},
					row{serverArea, bench, what + ": heap per cached object", "heap-B/object", costIf(all, 0.7)},
					row{serverArea, bench, what, "objects/s", nil},
				)
			}
		}
	}
	for _, k := range kinds {
		for _, content := range serverContents {
			all := k.fields == "all" && content != "cbor"
			bench := fmt.Sprintf("BenchmarkUpdates/kind=%s/content=%s/fields=%s", k.name, content, k.fields)
			what := fmt.Sprintf("10,000 updates of 100 %s, %s, replayed", k.label, content)
			rs = append(rs,
				row{serverArea, bench, what, "cpu-ns/update", costIf(all, 0.5)},
				row{serverArea, bench, what, "updates/s", nil},
			)
		}
	}
	return rs
}

// serverContents are the content types of the real-server rows.
var serverContents = []string{"protobuf", "json", "cbor"}

// costIf is costAtMost(fraction) when the row has a target, else nil.
func costIf(target bool, fraction float64) *target {
	if !target {
		return nil
	}
	return costAtMost(fraction)
}

// withoutUnmeasuredServer drops the real-server rows when none was
// measured (no server in this run), so that they neither fill the tables
// with dashes nor count as missed targets; the markdown says why. Like
// slices.DeleteFunc, it reuses outs' array.
func withoutUnmeasuredServer(outs []outcome) []outcome {
	if slices.ContainsFunc(outs, func(o outcome) bool { return o.area == serverArea && o.measured }) {
		return outs
	}
	return slices.DeleteFunc(outs, func(o outcome) bool { return o.area == serverArea })
}

// onlyServer keeps the real-server rows, reusing outs' array.
func onlyServer(outs []outcome) []outcome {
	return slices.DeleteFunc(outs, func(o outcome) bool { return o.area != serverArea })
}

// writeServerRun states where the real-server rows come from, under the
// area's heading.
func writeServerRun(b *strings.Builder, s serverRun) {
	if s.date == "" {
		return
	}
	size := "full sizes"
	if s.mode == "quick" {
		size = "**quick**: every size divided by 10 (names keep the full-size labels)"
	}
	iterations := fmt.Sprintf("iterations for `-benchtime %s` each", s.benchtime)
	if s.benchtime == "1x" {
		iterations = "one iteration each (`-benchtime 1x`)"
	}
	runs := fmt.Sprintf("`-count %d`", s.count)
	if s.processes {
		runs = fmt.Sprintf("%d processes (`-count 1` each; a row's value is the median of its %d runs)", s.count, s.count)
	}
	fmt.Fprintf(b, "Run: %s, commit `%s`, %s, %s, %s, against a kube-apiserver and etcd built and started by `scripts/kube-apiserver/cluster` on the same machine.\n\n",
		s.date, s.commit, size, runs, iterations)
}

// serverMissing is what RESULTS.md says when the run had no server.
const serverMissing = "\n## " + serverArea + "\n\nNot measured in this run: no server. Start one with `scripts/kube-apiserver/cluster start`, export what it prints, and run the report again (`-server only` runs these rows alone).\n"
