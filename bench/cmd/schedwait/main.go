// Command schedwait reads a Go execution trace and prints, for each
// goroutine that was woken often enough, how long it ran, how long it
// waited runnable before running, the distribution of those waits, and
// who made it runnable. It is the tool behind the scheduling analysis of
// the informer's latency and writes-under-listers benchmarks: a goroutine
// that waits long after each wakeup, and the goroutine that woke it, show
// where a pipeline loses time to the scheduler rather than to its own
// work.
//
// Run a benchmark with -trace, then read the trace, from the bench module:
//
//	go test -run '^$' -bench 'InformerWritesWhileListing/listers=10/impl=typedcache' -count 1 -trace /tmp/w.trace ./informer
//	go run ./cmd/schedwait -window 1s /tmp/w.trace
//
// A goroutine is named by the function, containing one of -match, that was
// most often the innermost such frame where it blocked; one that never
// blocked in such a function prints as g<id>.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/exp/trace"
)

func main() {
	window := flag.Duration("window", 0, "count only the trace's last `duration` (0: all of it)")
	minWakes := flag.Int("min", 10, "print goroutines woken at least `n` times")
	match := flag.String("match", "typedcache,k8s.io,bench", "comma-separated `substrings` of the functions that name goroutines")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: schedwait [flags] trace-file\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *window, *minWakes, strings.Split(*match, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "schedwait:", err)
		os.Exit(1)
	}
}

// run analyzes the trace in file and prints the table.
func run(w io.Writer, file string, window time.Duration, minWakes int, match []string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gs, err := analyze(f, window, match)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	printTable(w, gs, minWakes)
	return nil
}

// printTable writes one line per goroutine woken at least minWakes times, the
// longest total wait first.
func printTable(w io.Writer, gs []*goroutine, minWakes int) {
	names := make(map[trace.GoID]string, len(gs))
	for _, g := range gs {
		names[g.id] = nameOf(g)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "goroutine\tran\twaited\twakes\tp50\tp99\tmax\twoken by")
	for _, g := range gs {
		if len(g.delays) < minWakes {
			continue
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%d\t%v\t%v\t%v\t%s\n", names[g.id],
			g.ran.Round(time.Microsecond), g.waited.Round(time.Microsecond), len(g.delays),
			percentile(g.delays, 50).Round(time.Microsecond), percentile(g.delays, 99).Round(time.Microsecond),
			g.delays[len(g.delays)-1].Round(time.Microsecond), wakers(g, names))
	}
	tw.Flush()
}

// nameOf returns g's name, or g<id> if it has none.
func nameOf(g *goroutine) string {
	if g.name != "" {
		return g.name
	}
	return fmt.Sprintf("g%d", g.id)
}

// wakers describes who woke g, most frequent first.
func wakers(g *goroutine, names map[trace.GoID]string) string {
	type count struct {
		who string
		n   int
	}
	var cs []count
	for id, n := range g.wokenBy {
		who := names[id]
		switch {
		case id == g.id:
			who = "itself (preempted or yielded)"
		case id == trace.NoGoroutine:
			who = "runtime"
		case who == "":
			who = fmt.Sprintf("g%d", id)
		}
		cs = append(cs, count{who, n})
	}
	slices.SortFunc(cs, func(a, b count) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.who, b.who)
	})
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s ×%d", c.who, c.n)
	}
	return strings.Join(parts, ", ")
}
