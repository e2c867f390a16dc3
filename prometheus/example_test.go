package prometheus_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

// Example exports the metrics of a factory's informers and of a work
// queue. A program serves the registry with
// http.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{})).
func Example() {
	registry := promclient.NewRegistry()
	metrics, err := prometheus.New(registry)
	if err != nil {
		panic(err)
	}

	// Every informer of the factory, and the queue, report to metrics.
	factory := informer.NewFactory(informer.FactoryOptions{Metrics: metrics.Informer})
	defer factory.Shutdown()
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{Name: "objects", Metrics: metrics.Queue})
	defer q.ShutDown()

	src := memsource.New(memsource.Options[*object]{})
	for _, name := range []string{"a", "b", "c"} {
		if _, err := src.Create(&object{Name: name}); err != nil {
			panic(err)
		}
	}
	inf := informer.ForWithOptions(factory, src, informer.Options[*object]{Name: "objects"})
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*object]{
		AddFunc: func(o *object, _ bool) { q.Add(o.Name) },
	})
	if err != nil {
		panic(err)
	}
	factory.Start(context.Background())
	// Once the handler has synced, it has added every object to q.
	if err := reg.WaitForSync(context.Background()); err != nil {
		panic(err)
	}

	// What a scrape of /metrics returns, in part.
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		for _, prefix := range []string{"informer_cached_objects", "reflector_lists_total", "workqueue_adds_total", "workqueue_depth"} {
			if strings.HasPrefix(line, prefix+"{") {
				fmt.Print(line)
			}
		}
	}
	// Output:
	// informer_cached_objects{name="objects"} 3
	// reflector_lists_total{name="objects"} 1
	// workqueue_adds_total{name="objects"} 3
	// workqueue_depth{name="objects",priority=""} 3
}
