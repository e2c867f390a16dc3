// Command metrics exports the metrics of a small controller built on
// typedcache to Prometheus, through the module
// github.com/typedcache/typedcache/prometheus: an informer over an
// in-memory source feeds a work queue whose worker fails the first attempt
// at every key.
//
// By default it runs the controller until every key has succeeded and
// prints a part of what Prometheus would scrape. With -listen it serves
// /metrics on that address instead, while a writer keeps changing the
// source, until interrupted:
//
//	go run . [-listen localhost:8080]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"time"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/prometheus"
	"github.com/typedcache/typedcache/queue"
)

func main() {
	listen := flag.String("listen", "", "serve /metrics on this address until interrupted, instead of printing the metrics once")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var ln net.Listener
	if *listen != "" {
		var err error
		if ln, err = net.Listen("tcp", *listen); err != nil {
			fmt.Fprintln(os.Stderr, "metrics:", err)
			os.Exit(1)
		}
	}
	if err := run(ctx, os.Stdout, ln); err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(1)
	}
}

// shown are the metric families printed without -listen.
var shown = []string{
	"informer_cached_objects", "informer_handler_notifications_total",
	"reflector_lists_total",
	"workqueue_adds_total", "workqueue_depth", "workqueue_processed_total", "workqueue_retries_total",
}

// run runs the controller and prints its metrics to out, or, if ln is not
// nil, serves them on ln until ctx ends.
func run(ctx context.Context, out io.Writer, ln net.Listener) error {
	registry := promclient.NewRegistry()
	metrics, err := prometheus.New(registry)
	if err != nil {
		return err
	}
	quiet := slog.New(slog.DiscardHandler)
	factory := informer.NewFactory(informer.FactoryOptions{Metrics: metrics.Informer, Logger: quiet})
	defer factory.Shutdown()
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{
		Name: "configs", Metrics: metrics.Queue, Logger: quiet,
	})
	defer q.ShutDown()

	src := memsource.New(memsource.Options[*config]{})
	names := []string{"web", "db", "dns"}
	for _, name := range names {
		if _, err := src.Create(&config{Name: name}); err != nil {
			return err
		}
	}
	inf := informer.ForWithOptions(factory, src, informer.Options[*config]{Name: "configs"})
	if _, err := inf.AddEventHandlerWithOptions(informer.HandlerFuncs[*config]{
		AddFunc:    func(c *config, _ bool) { q.Add(c.Name) },
		UpdateFunc: func(_, c *config) { q.Add(c.Name) },
	}, informer.HandlerOptions{Name: "enqueue"}); err != nil {
		return err
	}
	factory.Start(ctx)

	// The worker fails the first attempt at every key.
	var mu sync.Mutex
	attempts := map[string]int{}
	var succeeded sync.WaitGroup // until every key has succeeded once
	succeeded.Add(len(names))
	reconcile := func(_ context.Context, name string) (queue.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		attempts[name]++
		switch attempts[name] {
		case 1:
			return queue.Result{}, errors.New("not ready yet")
		case 2:
			succeeded.Done()
		}
		return queue.Result{}, nil
	}
	ran := make(chan error, 1)
	go func() { ran <- q.Run(ctx, reconcile, queue.RunOptions[string]{Workers: 2}) }()

	if ln != nil {
		err = serve(ctx, ln, registry, src)
		q.ShutDown()
		return errors.Join(err, <-ran)
	}
	succeeded.Wait()
	// Run reports each item's outcome once its worker is done with it:
	// wait for the workers before printing.
	q.ShutDown()
	if err := <-ran; err != nil {
		return err
	}
	return printMetrics(out, registry)
}

// updateEvery is how often serve changes an object, so that the served
// metrics move.
const updateEvery = 100 * time.Millisecond

// serve serves /metrics on ln and updates an object of src every
// updateEvery, until ctx ends.
func serve(ctx context.Context, ln net.Listener, registry *promclient.Registry, src *memsource.Source[*config]) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	tick := time.NewTicker(updateEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case err := <-served:
			return err
		case <-ctx.Done():
			err := srv.Close()
			<-served // http.ErrServerClosed
			return err
		case <-tick.C:
			name := []string{"web", "db", "dns"}[i%3]
			if c, ok := src.Get(name); ok {
				if _, err := src.Update(&config{Name: name, RV: c.RV, Generation: c.Generation + 1}); err != nil {
					return err
				}
			}
		}
	}
}

// printMetrics writes the families in shown, in Prometheus' text format.
func printMetrics(out io.Writer, registry *promclient.Registry) error {
	families, err := registry.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(out, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if slices.Contains(shown, f.GetName()) {
			if err := enc.Encode(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// config is the object type of the example.
type config struct {
	Name, RV   string
	Generation int
}

func (c *config) GetNamespace() string         { return "" }
func (c *config) GetName() string              { return c.Name }
func (c *config) GetResourceVersion() string   { return c.RV }
func (c *config) SetResourceVersion(rv string) { c.RV = rv }

// DeepCopy returns a copy of c, as Kubernetes types' DeepCopy does: the
// cache mutation detector of the tests copies objects with it.
func (c *config) DeepCopy() *config { d := *c; return &d }
