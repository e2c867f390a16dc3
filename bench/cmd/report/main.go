// Command report runs the side-by-side benchmarks of typedcache and
// client-go and writes the results: a Markdown table per area with the
// targets of the package issues (RESULTS.md), a bar chart of the ratios
// (results.svg) and the raw go test output (results.txt, for benchstat).
//
// Run it from the bench module:
//
//	go run ./cmd/report            # full sizes, -count 10: writes ./RESULTS.md
//	go run ./cmd/report -quick -out /tmp/bench   # sizes / 10, -count 1
//	go run ./cmd/report -server only -out /tmp/server   # the real-server rows alone
//
// The benchmarks listed in separate (send-to-handler latency, the
// controller rows) are left out of the main go test run and run instead
// in -processes processes of their own, -count 1 each; their rows report
// the median of the process medians and its range, and their targets
// apply to that median.
//
// When a real kube-apiserver is running (TYPEDCACHE_KUBECONFIG is set, as
// scripts/kube-apiserver/cluster start prints it), the kube module's
// benchmarks against it run too, in 3 processes of -count 1 with
// -benchtime 2s (one process and one iteration with -quick), and fill the
// "real server" section; -server off leaves them out, -server only runs
// them alone. The raw outputs of two runs can be joined and redrawn with
// -from: the real-server rows keep their own run's date and commit.
//
// It fails only when the benchmarks fail to run, never on a missed target.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

const (
	markdownName = "RESULTS.md"
	svgName      = "results.svg"
	rawName      = "results.txt"
)

func main() {
	quick := flag.Bool("quick", false, "divide every size by 10 and run each benchmark once (go test -short)")
	count := flag.Int("count", 0, "runs of each benchmark (default 10, or 1 with -quick)")
	benchtime := flag.String("benchtime", "", "go test -benchtime (default 1s, or 100ms with -quick)")
	filter := flag.String("bench", ".", "go test -bench: which benchmarks to run")
	processes := flag.Int("processes", 0, "processes that each run the latency and controller benchmarks once (default 10, or 5 with -quick)")
	out := flag.String("out", ".", "directory to write "+markdownName+", "+svgName+" and "+rawName+" to")
	from := flag.String("from", "", "read go test output from this file instead of running the benchmarks")
	server := flag.String("server", serverAuto, "real-server rows: auto (when "+serverEnv+" is set), off, or only")
	flag.Parse()
	if err := run(*quick, *count, *processes, *benchtime, *filter, *out, *from, *server); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(quick bool, count, processes int, benchtime, filter, out, from, server string) error {
	withServer, err := measureServer(server)
	if err != nil {
		return err
	}
	if count <= 0 {
		// Ten runs, not five: the rows that depend on scheduling
		// (latency tails, writes among busy listers) vary by half from one
		// run to the next, and a median of five still wanders.
		count = 10
		if quick {
			count = 1
		}
	}
	if processes <= 0 {
		// At least five: one process's median is not a result.
		processes = 10
		if quick {
			processes = 5
		}
	}
	if benchtime == "" {
		benchtime = "1s"
		if quick {
			benchtime = "100ms"
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	command := "go run ./cmd/report"
	if quick {
		command += " -quick"
	}
	if server == serverOnly {
		command += " -server only"
	}
	if filter != "." {
		command += " -bench '" + filter + "'"
	}
	info := runInfo{
		date:      time.Now().UTC().Format("2006-01-02 15:04 MST"),
		commit:    commit(),
		goVersion: runtime.Version(),
		cpus:      runtime.NumCPU(),
		quick:     quick,
		count:     count,
		processes: processes,
		command:   command,
		filter:    filter,
		svgName:   svgName,
		rawName:   rawName,
	}

	var raw []byte
	var benchErr error
	if from != "" {
		var err error
		if raw, err = os.ReadFile(from); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, rawName), raw, 0o644); err != nil {
			return err
		}
	} else {
		if server != serverOnly {
			raw, benchErr = runBenchmarks(quick, count, processes, benchtime, filter)
			raw = append([]byte(info.header()), raw...)
		}
		if withServer {
			dir, err := moduleDir()
			if err != nil {
				return err
			}
			serverCount := 3
			if quick {
				serverCount = 1
			}
			srv, err := runServer(dir, quick, serverCount, filter)
			raw = append(raw, srv...)
			benchErr = errors.Join(benchErr, err)
		}
		if err := os.WriteFile(filepath.Join(out, rawName), raw, 0o644); err != nil {
			return err
		}
	}
	res, err := parse(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	info.restore(res.config) // a saved run keeps its own date, commit and mode
	outs := withoutUnmeasuredServer(evaluate(res))
	if server == serverOnly {
		outs = onlyServer(outs)
	}
	readme, err := readmeToUpdate(info.quick || server == serverOnly, filter, out)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, markdownName), func(w io.Writer) error { return writeMarkdown(w, info, res, outs) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, svgName), func(w io.Writer) error { return writeSVG(w, info, outs) }); err != nil {
		return err
	}
	fmt.Printf("wrote %s, %s and %s in %s\n", markdownName, svgName, rawName, out)
	if readme != "" {
		if err := updateReadme(readme, info, outs); err != nil {
			return err
		}
		fmt.Printf("updated the headline table of %s\n", readme)
	}
	return benchErr
}

// readmeToUpdate returns the path of the repository's README when this
// run is the one whose results are committed: full sizes, every
// benchmark, written into the bench module itself. Its headline table is
// then rewritten; other runs leave the README alone.
func readmeToUpdate(quick bool, filter, out string) (string, error) {
	if quick || filter != "." {
		return "", nil
	}
	dir, err := moduleDir()
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(out)
	if err != nil || abs != dir {
		return "", err
	}
	return filepath.Join(dir, "..", "README.md"), nil
}

// runBenchmarks runs every benchmark package of the module, then the
// separate benchmarks in processes of their own, and returns their output,
// which it also copies to stdout as it comes.
func runBenchmarks(quick bool, count, processes int, benchtime, filter string) ([]byte, error) {
	dir, err := moduleDir()
	if err != nil {
		return nil, err
	}
	pkgs, err := benchPackages(dir)
	if err != nil {
		return nil, err
	}
	args := []string{"test", "-run", "^$", "-bench", filter, "-skip", skipSeparate(), "-benchmem",
		"-count", fmt.Sprint(count), "-benchtime", benchtime, "-timeout", "60m"}
	if quick {
		args = append(args, "-short")
	}
	args = append(args, pkgs...)
	fmt.Fprintln(os.Stderr, "go", strings.Join(args, " "))
	var buf bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stdout = io.MultiWriter(&buf, os.Stdout)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return buf.Bytes(), fmt.Errorf("go test: %w (results written for the benchmarks that ran)", err)
	}
	sep, err := runSeparate(dir, processes, quick, benchtime, filter)
	buf.Write(sep)
	if err != nil {
		return buf.Bytes(), fmt.Errorf("%w (results written for the benchmarks that ran)", err)
	}
	return buf.Bytes(), nil
}

// moduleDir returns the directory of the bench module, whichever of its
// directories the command runs in.
func moduleDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not in a module; run from the bench module")
	}
	return filepath.Dir(gomod), nil
}

// benchPackages lists the packages of the module in dir that have tests,
// leaving out internal helpers and commands.
func benchPackages(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}}", "./...")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []string
	for line := range strings.Lines(string(outb)) {
		f := strings.Fields(line)
		if len(f) != 3 || (f[1] == "0" && f[2] == "0") {
			continue
		}
		if strings.Contains(f[0], "/internal/") || strings.Contains(f[0], "/cmd/") {
			continue
		}
		pkgs = append(pkgs, f[0])
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no benchmark packages found; run from the bench module")
	}
	return pkgs, nil
}

// commit names the checked-out commit, noting uncommitted changes to
// tracked files.
func commit() string {
	sha, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	s := strings.TrimSpace(string(sha))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		s += " + uncommitted changes"
	}
	return s
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
