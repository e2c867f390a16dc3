package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// levels is a slog.Handler that counts records by level, and the records
// that mention a conflict.
type levels struct {
	mu        sync.Mutex
	byLevel   map[slog.Level]int
	errors    []string
	conflicts int
}

func (h *levels) Enabled(context.Context, slog.Level) bool { return true }
func (h *levels) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *levels) WithGroup(string) slog.Handler            { return h }

func (h *levels) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.byLevel[r.Level]++
	if r.Level >= slog.LevelError {
		h.errors = append(h.errors, b.String())
	}
	if strings.Contains(b.String(), "conflict") {
		h.conflicts++
	}
	return nil
}

// With -v, the program logs what happens at Debug: the conflicts of writes
// based on a cache that was behind, and the injected faults, are routine
// and never reach ERROR, while the run passes. Whether a run meets a
// conflict depends on how its goroutines interleave, about one run in two,
// so the test runs seeds until it has seen one, up to maxSeeds.
func TestVerboseConflictsBelowError(t *testing.T) {
	const maxSeeds = 20
	h := &levels{byLevel: map[slog.Level]int{}}
	for seed := uint64(1); seed <= maxSeeds && (seed <= 3 || h.conflicts == 0); seed++ {
		synctest.Test(t, func(t *testing.T) {
			cfg := config{Duration: 3 * time.Second, Settle: time.Minute, Interval: 5 * time.Millisecond,
				Progress: time.Second, Foos: 20, Workers: 2, Seed: seed, Logger: slog.New(h)}
			sum, err := run(context.Background(), cfg, io.Discard)
			if err != nil || !sum.Consistent {
				t.Fatalf("seed %d: run = %+v, %v; want a consistent world", seed, sum, err)
			}
		})
	}
	if len(h.errors) > 0 {
		t.Errorf("%d ERROR records, want none; the first: %s", len(h.errors), h.errors[0])
	}
	if h.conflicts == 0 || h.byLevel[slog.LevelDebug] == 0 {
		t.Errorf("%d records mention a conflict, %d are at Debug; want some of each (the test must see conflicts)", h.conflicts, h.byLevel[slog.LevelDebug])
	}
}
