// Command samplecontroller is a complete controller built on typedcache, in
// the spirit of Kubernetes' sample-controller, running against the embedded
// in-memory source so that it needs no cluster.
//
// A Foo asks for Replicas children of type Bar running its Image. The
// controller, built with the controller package and run by its Manager,
// watches Foos and, through their owner, Bars, with informers of a shared
// factory; it queues the keys of Foos whose children may be wrong in a
// priority work queue (changes before the initial lists and resyncs), and
// reconciles them: it creates missing Bars, fixes their image, and deletes
// extra and orphaned ones. Meanwhile a driver plays the world: it creates,
// scales, re-images and deletes Foos, deletes and edits Bars behind the
// controller's back, and makes the sources drop watches, fail requests and
// expire versions like a real API server.
//
// After -duration the driver stops, the controller gets up to -settle to
// catch up, and the program checks that every Foo has exactly the children it
// asks for and that every cache equals its source. It prints a summary and
// exits with status 1 if the check fails.
//
//	go run ./examples/samplecontroller [-duration 10s] [-foos 20] [-workers 2] [-seed 1] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"
)

func main() {
	var cfg config
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long the driver disturbs the world")
	flag.DurationVar(&cfg.Settle, "settle", 30*time.Second, "how long the controller may take to catch up once the driver stops")
	flag.DurationVar(&cfg.Interval, "interval", 5*time.Millisecond, "time between two changes of the driver")
	flag.DurationVar(&cfg.Progress, "progress", time.Second, "time between two progress lines")
	flag.IntVar(&cfg.Foos, "foos", 20, "number of Foos at start")
	flag.IntVar(&cfg.Workers, "workers", 2, "number of reconcile workers")
	flag.Uint64Var(&cfg.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the driver's random choices: the same seed replays the same script of changes and faults, one step per -interval; how the controller's work interleaves with it, and so the summary's counts, still vary with timing")
	verbose := flag.Bool("v", false, "log the controller's and the informers' errors")
	flag.Parse()

	level := slog.LevelError + 1 // quiet: the summary says what happened
	if *verbose {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "samplecontroller:", err)
		os.Exit(1)
	}
	if !sum.Consistent {
		os.Exit(1)
	}
}

// config holds the command's flags.
type config struct {
	Duration, Settle, Interval, Progress time.Duration
	Foos, Workers                        int
	Seed                                 uint64
	Logger                               *slog.Logger
}

// printf writes one line of progress.
func printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
}
