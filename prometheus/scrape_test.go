package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

// TestScrape runs an informer and two queues through known work in a
// testing/synctest bubble, so that every duration is exact, then serves
// the registry with promhttp on a real HTTP server, scrapes /metrics,
// parses the answer and checks the value of every series. The server
// runs only once the work is done: the bubble's clock stands still while
// a goroutine waits on the network.
func TestScrape(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		reg := promclient.NewRegistry()
		p, err := prometheus.New(reg)
		if err != nil {
			t.Fatal(err)
		}
		runQueues(t, p)
		runInformer(t, p, reg)

		want := map[string]float64{
			// Queue "jobs": a and b added at 0s; a taken at 2s and done at
			// 5s; b taken at 5s and still processing; c added rate-limited
			// at 5s, queued at 6s.
			`workqueue_adds_total{name="jobs"}`:                        3,
			`workqueue_retries_total{name="jobs"}`:                     1,
			`workqueue_depth{name="jobs",priority=""}`:                 1,
			`workqueue_unfinished_work_seconds{name="jobs"}`:           75,
			`workqueue_longest_running_processor_seconds{name="jobs"}`: 75,
			`workqueue_queue_duration_seconds_count{name="jobs"}`:      2,
			`workqueue_queue_duration_seconds_sum{name="jobs"}`:        7,
			`workqueue_work_duration_seconds_count{name="jobs"}`:       1,
			`workqueue_work_duration_seconds_sum{name="jobs"}`:         3,
			// Queue "worker": Run processed x (terminal) and y (succeeded).
			`workqueue_adds_total{name="worker"}`:                          2,
			`workqueue_depth{name="worker",priority=""}`:                   0,
			`workqueue_processed_total{name="worker",outcome="succeeded"}`: 1,
			`workqueue_processed_total{name="worker",outcome="terminal"}`:  1,
			`workqueue_processed_total{name="worker",outcome="failed"}`:    0,
			`workqueue_processed_total{name="worker",outcome="requeued"}`:  0,
			`workqueue_processed_total{name="worker",outcome="gave_up"}`:   0,
			`workqueue_work_duration_seconds_count{name="worker"}`:         2,
			`workqueue_unfinished_work_seconds{name="worker"}`:             0,
			`workqueue_longest_running_processor_seconds{name="worker"}`:   0,
			// Priority queue "prio": "resync" added at PriorityLow at 0s,
			// "live" at PriorityNormal at 2s; scraped at 80s.
			`workqueue_depth{name="prio",priority="0"}`:                      1,
			`workqueue_depth{name="prio",priority="-100"}`:                   1,
			`workqueue_oldest_item_age_seconds{name="prio",priority="0"}`:    78,
			`workqueue_oldest_item_age_seconds{name="prio",priority="-100"}`: 80,
			// Informer "objs": see runInformer.
			`reflector_lists_total{name="objs"}`:                                          2,
			`reflector_watches_total{name="objs"}`:                                        3,
			`reflector_relists_total{name="objs",reason="expired"}`:                       1,
			`reflector_relists_total{name="objs",reason="error"}`:                         0,
			`reflector_watch_errors_total{name="objs"}`:                                   1,
			`reflector_resyncs_total{name="objs"}`:                                        1,
			`reflector_watch_events_total{name="objs",type="added"}`:                      1,
			`reflector_watch_events_total{name="objs",type="updated"}`:                    1,
			`reflector_watch_events_total{name="objs",type="deleted"}`:                    1,
			`reflector_watch_events_total{name="objs",type="bookmark"}`:                   0,
			`reflector_last_successful_list_timestamp_seconds{name="objs"}`:               float64(start.Add(30*time.Second).UnixNano()) / 1e9,
			`reflector_time_since_last_watch_event_seconds{name="objs"}`:                  40,
			`informer_cached_objects{name="objs"}`:                                        2,
			`informer_queued_items{name="objs"}`:                                          0,
			`informer_index_failures_total{name="objs"}`:                                  0,
			`informer_unindexed_objects{name="objs"}`:                                     0,
			`informer_handler_notifications_total{handler="count",name="objs"}`:           7,
			`informer_handler_pending_notifications{handler="count",name="objs"}`:         0,
			`informer_handler_panics_total{handler="count",name="objs"}`:                  0,
			`informer_handler_blocked_pushes_total{handler="count",name="objs"}`:          0,
			`informer_handler_coalesced_notifications_total{handler="count",name="objs"}`: 0,
			`informer_handler_notifications_total{handler="panicky",name="objs"}`:         7,
			`informer_handler_panics_total{handler="panicky",name="objs"}`:                1,
		}
		got := scrape(t, reg)
		for series, v := range want {
			g, ok := got[series]
			switch {
			case !ok:
				t.Errorf("%s missing from the scrape", series)
			case g != v:
				t.Errorf("%s = %v, want %v", series, g, v)
			}
		}
		// Every family scraped has a series checked above.
		checked := map[string]bool{}
		for series := range want {
			checked[family(series)] = true
		}
		for series := range got {
			if f := family(series); !checked[f] {
				checked[f] = true
				t.Errorf("%s scraped but not checked", f)
			}
		}
	})
}

// runQueues runs the queues "jobs", "prio" and "worker" through the work TestScrape
// checks, in 10 seconds.
func runQueues(t *testing.T, p *prometheus.Provider) {
	limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	jobs := queue.NewTypedRateLimitingQueue(limiter, queue.Options{Name: "jobs", Metrics: p.Queue})
	t.Cleanup(jobs.ShutDown)
	get := func() string {
		item, err := jobs.Get(context.Background())
		if err != nil {
			t.Fatalf("Get() = %v", err)
		}
		return item
	}
	prio := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{Options: queue.Options{Name: "prio", Metrics: p.Queue}})
	t.Cleanup(prio.ShutDown)
	prio.AddWithOptions("resync", queue.AddOptions{Priority: queue.PriorityLow})
	jobs.Add("a")
	jobs.Add("b")
	time.Sleep(2 * time.Second)
	prio.Add("live")
	a := get()
	time.Sleep(3 * time.Second)
	jobs.Done(a)
	get() // b, held to the end
	jobs.AddRateLimited("c")

	worker := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{Name: "worker", Metrics: p.Queue, Logger: discard})
	worker.Add("x")
	worker.Add("y")
	worker.ShutDown() // Run drains the queue, then returns
	process := func(_ context.Context, item string) (queue.Result, error) {
		if item == "x" {
			return queue.Result{}, queue.TerminalError(nil)
		}
		return queue.Result{}, nil
	}
	if err := worker.Run(context.Background(), process, queue.RunOptions[string]{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
}

// counter is a handler that counts nothing itself: the informer's stats
// do.
var counter = informer.HandlerFuncs[*object]{}

// runInformer runs the informer "objs", from 10s to 80s of the test:
//
//   - at 10s, it lists a and b, and watches; a is updated, c created and b
//     deleted (three watch events);
//   - at 30s, the source closes the watch, and the watch started again
//     expires: the informer relists (a and c, unchanged: no handler is
//     told, none being due for a resync) and watches again;
//   - at 40s, a collection sees the events;
//   - at 60s, a resync, 30s after the relist, re-delivers a and c;
//   - at 80s, the test scrapes.
//
// Both handlers are told 2 initial adds, 3 changes and 2 resyncs; the
// handler "panicky" panics on b's deletion.
func runInformer(t *testing.T, p *prometheus.Provider, reg *promclient.Registry) {
	// Bookmarks would come every minute; this test checks them as zero.
	src := memsource.New(memsource.Options[*object]{DisableStreamingList: true, DisableBookmarks: true})
	for _, name := range []string{"a", "b"} {
		if _, err := src.Create(&object{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	factory := informer.NewFactory(informer.FactoryOptions{Metrics: p.Informer, Logger: discard})
	t.Cleanup(func() {
		if err := factory.Shutdown(); err != nil {
			t.Errorf("factory.Shutdown() = %v", err)
		}
	})
	inf := informer.ForWithOptions(factory, src, informer.Options[*object]{Name: "objs", ResyncPeriod: 30 * time.Second})
	panicky := informer.HandlerFuncs[*object]{DeleteFunc: func(informer.Deleted[*object]) { panic("boom") }}
	for name, h := range map[string]informer.Handler[*object]{"count": counter, "panicky": panicky} {
		if _, err := inf.AddEventHandlerWithOptions(h, informer.HandlerOptions{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	factory.Start(context.Background())
	synctest.Wait()
	a, _ := src.Get("a")
	if _, err := src.Update(&object{Name: "a", Value: a.Value + 1, RV: a.RV}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Create(&object{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Delete("b"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Second)
	src.SetFaults(memsource.Faults{ExpireWatches: 1})
	src.CloseWatches()
	time.Sleep(10 * time.Second)
	synctest.Wait()
	if _, err := reg.Gather(); err != nil { // the collection at 40s
		t.Fatal(err)
	}
	time.Sleep(40 * time.Second)
}

// scrape serves reg on a real HTTP server, gets /metrics and returns the
// value of every series, keyed by its name and labels in the exposition
// format's order.
func scrape(t *testing.T, reg *promclient.Registry) map[string]float64 {
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for name, f := range families {
		if f.GetHelp() == "" {
			t.Errorf("%s has no help text", name)
		}
		for _, m := range f.GetMetric() {
			labels := labelString(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				got[name+"{"+labels+"}"] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				got[name+"{"+labels+"}"] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				got[name+"_count{"+labels+"}"] = float64(h.GetSampleCount())
				got[name+"_sum{"+labels+"}"] = h.GetSampleSum()
				for _, b := range h.GetBucket() {
					got[fmt.Sprintf("%s_bucket{%s,le=%q}", name, labels, fmt.Sprint(b.GetUpperBound()))] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return got
}

// labelString formats labels as the exposition format does, sorted by
// name.
func labelString(ls []*dto.LabelPair) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// family returns the metric family of a series: its name, without the
// suffix of a histogram's series.
func family(series string) string {
	name, _, _ := strings.Cut(series, "{")
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if f, ok := strings.CutSuffix(name, suffix); ok && strings.HasPrefix(f, "workqueue_") && strings.HasSuffix(f, "_duration_seconds") {
			return f
		}
	}
	return name
}
