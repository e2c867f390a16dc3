// Command queuemetrics exports the metrics of a typedcache work queue to
// Prometheus: it runs a small controller loop, then prints the queue's
// metrics in the Prometheus text format.
//
//	go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/typedcache/typedcache/queue"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "queuemetrics:", err)
		os.Exit(1)
	}
}

func run() error {
	reg := prometheus.NewRegistry()
	provider, err := NewProvider(reg)
	if err != nil {
		return err
	}
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{
		Name:    "pods",
		Metrics: provider.NewMetrics,
		Logger:  slog.New(slog.DiscardHandler),
	})

	// A controller whose first attempt at every key fails.
	var mu sync.Mutex
	seen := map[string]bool{}
	var succeeded sync.WaitGroup
	keys := []string{"default/web", "default/db", "kube-system/dns"}
	succeeded.Add(len(keys))
	reconcile := func(ctx context.Context, key string) (queue.Result, error) {
		time.Sleep(time.Millisecond) // some work
		mu.Lock()
		defer mu.Unlock()
		if !seen[key] {
			seen[key] = true
			return queue.Result{}, errors.New("not ready yet")
		}
		succeeded.Done()
		return queue.Result{}, nil
	}
	for _, key := range keys {
		q.Add(key)
	}
	ran := make(chan error, 1)
	go func() { ran <- q.Run(context.Background(), reconcile, queue.RunOptions[string]{Workers: 2}) }()
	succeeded.Wait()
	if err := q.ShutDownWithDrain(context.Background()); err != nil {
		return err
	}
	if err := <-ran; err != nil {
		return err
	}

	families, err := reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(os.Stdout, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if strings.HasPrefix(mf.GetName(), "workqueue_") {
			if err := enc.Encode(mf); err != nil {
				return err
			}
		}
	}
	return nil
}
