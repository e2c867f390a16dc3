package main

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// summary is what a run did and how it ended.
type summary struct {
	Foos, Bars                                 int
	Events, Reconciles, Retries                uint64
	Creates, Updates, Deletes                  uint64
	FooWrites, BarDisturbances, Faults         uint64
	SourceErrors                               uint64 // failed lists and watches the informers recovered from
	Lists, Watches, ClosedWatches, Expirations uint64
	Settle                                     time.Duration // time from the driver's stop to a consistent world
	Consistent                                 bool
	Problems                                   []string // what was wrong at the end, if anything
}

// run builds the world and the controller, lets the driver disturb the world
// for cfg.Duration, waits for the controller to catch up and checks the
// result. It returns only after every goroutine it started has exited.
func run(ctx context.Context, cfg config, out io.Writer) (summary, error) {
	foos := memsource.New(memsource.Options[*Foo]{})
	bars := memsource.New(memsource.Options[*Bar]{})
	d := newDriver(foos, bars, cfg.Seed)
	if err := d.seed(cfg.Foos); err != nil {
		return summary{}, err
	}

	var sourceErrors atomic.Uint64
	// modified lists the cached objects that the cache mutation detector
	// (on under TYPEDCACHE_CACHE_MUTATION_DETECTOR=true) found modified.
	var modified struct {
		sync.Mutex
		problems []string
	}
	factory := informer.NewFactory(informer.FactoryOptions{
		Logger: cfg.Logger,
		ErrorHandler: func(ctx context.Context, err error) {
			if _, ok := errors.AsType[*informer.CacheMutationError](err); ok {
				modified.Lock()
				defer modified.Unlock()
				modified.problems = append(modified.problems, err.Error())
				return
			}
			sourceErrors.Add(1)
			cfg.Logger.DebugContext(ctx, "informer recovered", "err", err)
		},
	})
	c, err := NewController(factory, foos, bars, cfg.Workers, cfg.Logger)
	if err != nil {
		return summary{}, err
	}
	// The manager starts the factory, runs the controller once the caches
	// have synced, and stops both when ctx ends.
	m := controller.NewManager(factory, controller.ManagerOptions{})
	if err := m.Add(c.ctrl); err != nil {
		return summary{}, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var manager sync.WaitGroup
	var runErr error
	manager.Go(func() { runErr = m.Run(ctx) })

	printf(out, "samplecontroller: %d foos, %d workers, driver for %v (seed %d)", cfg.Foos, cfg.Workers, cfg.Duration, cfg.Seed)
	started := time.Now()
	progress := func() {
		printf(out, "%6.1fs  foos=%-4d bars=%-4d events=%-6d reconciles=%-6d retries=%-4d | driver: foo writes=%d bar disturbances=%d faults=%d",
			time.Since(started).Seconds(), foos.Len(), bars.Len(), c.stats.events.Load(), c.stats.reconciles.Load(),
			c.stats.failures.Load(), d.fooWrites.Load(), d.barDisturbances.Load(), d.faults.Load())
	}

	driving, stopDriving := context.WithTimeout(ctx, cfg.Duration)
	defer stopDriving()
	var driver sync.WaitGroup
	driver.Go(func() { d.run(driving, cfg.Interval) })
	tick := time.NewTicker(cfg.Progress)
	defer tick.Stop()
	for driving.Err() == nil {
		select {
		case <-driving.Done():
		case <-tick.C:
			progress()
		}
	}
	driver.Wait()
	d.calm()
	printf(out, "driver stopped; waiting up to %v for the controller to catch up", cfg.Settle)

	settleStart := time.Now()
	problems := checkWorld(c)
	for len(problems) > 0 && time.Since(settleStart) < cfg.Settle && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
		problems = checkWorld(c)
	}
	settle := time.Since(settleStart)
	progress()

	cancel()
	manager.Wait()
	modified.Lock()
	problems = append(problems, modified.problems...)
	modified.Unlock()
	if err := withoutMutations(runErr); err != nil {
		return summary{}, err
	}

	fs, bs := foos.Stats(), bars.Stats()
	sum := summary{
		Foos: foos.Len(), Bars: bars.Len(),
		Events: c.stats.events.Load(), Reconciles: c.stats.reconciles.Load(), Retries: c.stats.failures.Load(),
		Creates: c.stats.creates.Load(), Updates: c.stats.updates.Load(), Deletes: c.stats.deletes.Load(),
		FooWrites: d.fooWrites.Load(), BarDisturbances: d.barDisturbances.Load(), Faults: d.faults.Load(),
		SourceErrors:  sourceErrors.Load(),
		Lists:         fs.Lists + bs.Lists,
		Watches:       fs.Watches + bs.Watches,
		ClosedWatches: fs.ClosedWatches + bs.ClosedWatches,
		Expirations:   fs.Expired + bs.Expired + fs.InjectedExpiries + bs.InjectedExpiries,
		Settle:        settle,
		Consistent:    len(problems) == 0,
		Problems:      problems,
	}
	sum.print(out)
	return sum, nil
}

// withoutMutations returns err without the cache mutations it joins, which
// the factory's error handler has already made problems of: nil if nothing
// else failed.
func withoutMutations(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range joined.Unwrap() {
			rest = append(rest, withoutMutations(e))
		}
		return errors.Join(rest...)
	}
	if _, ok := errors.AsType[*informer.CacheMutationError](err); ok {
		return nil
	}
	return err
}

// print writes the summary for a person to read.
func (s summary) print(out io.Writer) {
	printf(out, "")
	printf(out, "summary")
	printf(out, "  objects      %d foos, %d bars", s.Foos, s.Bars)
	printf(out, "  controller   %d events handled, %d reconciles, %d retried after an error", s.Events, s.Reconciles, s.Retries)
	printf(out, "  children     %d created, %d updated, %d deleted", s.Creates, s.Updates, s.Deletes)
	printf(out, "  driver       %d foo writes, %d bar disturbances, %d faults injected", s.FooWrites, s.BarDisturbances, s.Faults)
	printf(out, "  sources      %d lists, %d watches, %d watches dropped, %d versions expired, %d errors recovered", s.Lists, s.Watches, s.ClosedWatches, s.Expirations, s.SourceErrors)
	if s.Consistent {
		printf(out, "  consistency  PASS: every foo has exactly its bars, and every cache equals its source (settled in %v)", s.Settle.Round(time.Millisecond))
		return
	}
	printf(out, "  consistency  FAIL after %v:", s.Settle.Round(time.Millisecond))
	for i, p := range s.Problems {
		if i == 20 {
			printf(out, "    ... and %d more", len(s.Problems)-i)
			break
		}
		printf(out, "    %s", p)
	}
}
