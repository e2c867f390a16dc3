package controller_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// outcomes counts the outcomes a queue's metrics are told of.
type outcomes struct {
	mu sync.Mutex
	n  map[queue.Outcome]int
}

func (o *outcomes) Added()                 {}
func (o *outcomes) Started(time.Duration)  {}
func (o *outcomes) Finished(time.Duration) {}
func (o *outcomes) Retried()               {}
func (o *outcomes) Processed(out queue.Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n[out]++
}

func TestStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		for _, name := range []string{"ok", "later", "fail", "term", "panic", "slow"} {
			e.createFoo(name)
		}
		r := recorder{result: func(_ context.Context, key string, n int) (queue.Result, error) {
			switch {
			case key == "ns/ok":
				time.Sleep(30 * time.Millisecond)
			case key == "ns/slow":
				time.Sleep(2 * time.Minute) // beyond the last bucket
			case key == "ns/later" && n == 1:
				return queue.Result{RequeueAfter: time.Second}, nil
			case key == "ns/fail" && n == 1:
				return queue.Result{}, errors.New("failure")
			case key == "ns/term":
				return queue.Result{}, queue.TerminalError(errors.New("invalid"))
			case key == "ns/panic" && n == 1:
				panic("boom")
			}
			return queue.Result{}, nil
		}}
		var names []string
		var stats func() controller.Stats
		queueOutcomes := &outcomes{n: make(map[queue.Outcome]int)}
		c := newController(t, e, &r, controller.Options[string]{
			MaxConcurrentReconciles: 3,
			Metrics: func(name string, s func() controller.Stats) {
				names = append(names, name)
				stats = s
			},
			QueueMetrics: func(name string, _ func() queue.MetricsSnapshot) queue.Metrics {
				names = append(names, name)
				return queueOutcomes
			},
		})
		e.run(c)
		time.Sleep(time.Hour)
		settle(t, c)

		if diff := cmp.Diff([]string{"foo", "foo"}, names); diff != "" {
			t.Errorf("names given to QueueMetrics and Metrics mismatch (-want +got):\n%s", diff)
		}
		// Every call takes no time but ok's (30ms) and slow's (2m).
		want := controller.Stats{
			Succeeded:      5, // ok, later, fail, panic after their first call, slow
			RequeuedAfter:  1,
			Errors:         3, // fail, term and panic
			TerminalErrors: 1,
			Panics:         1,
			ReconcileTime: controller.Histogram{
				Counts: []uint64{7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
					8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8},
				Count: 9,
				Sum:   2*time.Minute + 30*time.Millisecond,
			},
			MaxConcurrentReconciles: 3,
		}
		got := stats()
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(controller.Histogram{}, "Bounds")); diff != "" {
			t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
		}
		if b := got.ReconcileTime.Bounds; len(b) != 40 || b[0] != 0.005 || b[39] != 60 {
			t.Errorf("Stats().ReconcileTime.Bounds = %v, want controller-runtime's 40 buckets from 0.005 to 60", b)
		}
		wantOutcomes := map[queue.Outcome]int{queue.Succeeded: 5, queue.Requeued: 1, queue.Failed: 2, queue.Terminal: 1}
		if diff := cmp.Diff(wantOutcomes, queueOutcomes.n); diff != "" {
			t.Errorf("outcomes passed on to QueueMetrics mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestStatsActiveWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		e.createFoo("b")
		release := make(chan struct{})
		r := recorder{result: func(context.Context, string, int) (queue.Result, error) {
			<-release
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{MaxConcurrentReconciles: 4})
		e.run(c)
		synctest.Wait()
		if s := c.Stats(); s.ActiveWorkers != 2 || s.MaxConcurrentReconciles != 4 {
			t.Errorf("Stats() ActiveWorkers, MaxConcurrentReconciles = %d, %d; want 2, 4", s.ActiveWorkers, s.MaxConcurrentReconciles)
		}
		close(release)
		settle(t, c)
		if s := c.Stats(); s.ActiveWorkers != 0 || s.Succeeded != 2 {
			t.Errorf("Stats() ActiveWorkers, Succeeded = %d, %d; want 0, 2", s.ActiveWorkers, s.Succeeded)
		}
	})
}
