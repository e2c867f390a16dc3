package queue_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// recorder records every event of a queue whose Options.Metrics is its
// NewMetrics.
type recorder struct {
	mu       sync.Mutex
	name     string
	snapshot func() queue.MetricsSnapshot
	events   []string
}

func (r *recorder) NewMetrics(name string, snapshot func() queue.MetricsSnapshot) queue.Metrics {
	r.name, r.snapshot = name, snapshot
	return r
}

func (r *recorder) record(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) Added()                        { r.record("added") }
func (r *recorder) Started(queued time.Duration)  { r.record("started after " + queued.String()) }
func (r *recorder) Finished(worked time.Duration) { r.record("finished after " + worked.String()) }
func (r *recorder) Retried()                      { r.record("retried") }
func (r *recorder) Processed(o queue.Outcome)     { r.record("processed: " + o.String()) }

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		q := queue.NewTypedRateLimitingQueue(queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute), queue.Options{Name: "jobs", Metrics: rec.NewMetrics})
		defer q.ShutDown()
		if rec.name != "jobs" {
			t.Errorf("provider got name %q, want jobs", rec.name)
		}
		get := func() string {
			item, err := q.Get(context.Background())
			if err != nil {
				t.Fatalf("Get() error = %v", err)
			}
			return item
		}

		q.Add("a")
		q.Add("a") // collapsed: no event
		q.Add("b")
		time.Sleep(2 * time.Second)
		a := get()
		time.Sleep(time.Second)
		b := get()
		q.Add("a") // dirty: counts as an add
		time.Sleep(3 * time.Second)

		want := queue.MetricsSnapshot{Depth: 1, Processing: 2, UnfinishedWork: 7 * time.Second, LongestRunning: 4 * time.Second}
		if diff := cmp.Diff(want, rec.snapshot()); diff != "" {
			t.Errorf("snapshot() mismatch (-want +got):\n%s", diff)
		}

		q.Done(a) // requeued
		q.Done(b)
		q.AddRateLimited("b") // delayed by 1s
		q.AddAfter("c", 0)
		time.Sleep(time.Second)
		synctest.Wait()

		want = queue.MetricsSnapshot{Depth: 3}
		if diff := cmp.Diff(want, rec.snapshot()); diff != "" {
			t.Errorf("snapshot() after Done mismatch (-want +got):\n%s", diff)
		}
		wantEvents := []string{
			"added", "added",
			"started after 2s",
			"started after 3s",
			"added",
			"finished after 4s",
			"finished after 3s",
			"retried",
			"retried", "added",
			"added", // b's delayed add comes due
		}
		if diff := cmp.Diff(wantEvents, rec.events); diff != "" {
			t.Errorf("metric events mismatch (-want +got):\n%s", diff)
		}
	})
}

// Options.Metrics has the named type MetricsProvider, so that a provider
// can be declared, stored and passed as one, and a method value such as
// recorder.NewMetrics still fits.
func TestMetricsProvider(t *testing.T) {
	rec := &recorder{}
	var provider queue.MetricsProvider = rec.NewMetrics
	opts := queue.Options{Name: "jobs", Metrics: provider}
	q := queue.New[string](opts)
	defer q.ShutDown()
	q.Add("a")
	if diff := cmp.Diff([]string{"added"}, rec.events); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if rec.name != "jobs" {
		t.Errorf("MetricsProvider called with name %q, want %q", rec.name, "jobs")
	}
}
