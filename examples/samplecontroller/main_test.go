package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The informers check that nothing modifies their cached objects; run
	// reports what they find as problems.
	detectortest.DefaultOn()
	goleak.VerifyTestMain(m)
}

// TestControllerConverges runs the whole program, driver and injected faults
// included, in a synctest bubble: time is virtual, so the run is quick and
// its timing does not depend on the machine's load. Whatever the seed, the
// world must be consistent once the driver stops.
func TestControllerConverges(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out strings.Builder
				cfg := config{
					Duration: 3 * time.Second,
					Settle:   time.Minute,
					Interval: 5 * time.Millisecond,
					Progress: time.Second,
					Foos:     20,
					Workers:  2,
					Seed:     seed,
					Logger:   slog.New(slog.DiscardHandler),
				}
				sum, err := run(context.Background(), cfg, &out)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if !sum.Consistent {
					t.Fatalf("world not consistent after the driver stopped:\n%s", out.String())
				}
				if sum.Faults == 0 || sum.FooWrites == 0 || sum.BarDisturbances == 0 {
					t.Errorf("the driver did not exercise the controller: %+v", sum)
				}
				if sum.Creates == 0 || sum.Updates == 0 || sum.Deletes == 0 {
					t.Errorf("the controller never created, updated and deleted children: %+v", sum)
				}
				if !strings.Contains(out.String(), "consistency  PASS") {
					t.Errorf("summary does not report the passing check:\n%s", out.String())
				}
			})
		})
	}
}

// TestRunStopsOnCancel checks that cancelling the program's context ends the
// run early, leaving no goroutine behind (goleak checks after the tests).
func TestRunStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(500*time.Millisecond, cancel)
		cfg := config{Duration: time.Hour, Settle: time.Hour, Interval: 5 * time.Millisecond, Progress: time.Second,
			Foos: 5, Workers: 1, Seed: 9, Logger: slog.New(slog.DiscardHandler)}
		start := time.Now()
		if _, err := run(ctx, cfg, io.Discard); err != nil {
			t.Fatalf("run: %v", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("run returned %v after the cancellation at 500ms", d)
		}
	})
}
