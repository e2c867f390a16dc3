package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// The cache mutation detector catches a handler that modifies an object it
// is handed. A test suite turns it on for every informer with
// TYPEDCACHE_CACHE_MUTATION_DETECTOR=true, and fails through Run's error
// or an ErrorHandler that fails the test.
func ExampleMutationDetector() {
	src := memsource.New(memsource.Options[*Pod]{})
	_, _ = src.Create(&Pod{Namespace: "default", Name: "web", Image: "nginx:1.27"})

	inf := informer.New(src, informer.Options[*Pod]{
		// *Pod has a DeepCopy method; other types set Copy. The check at
		// shutdown is enough here; periodic checks report earlier.
		MutationDetector: informer.MutationDetector[*Pod]{Enabled: true, Period: time.Hour},
		ErrorHandler: func(_ context.Context, err error) {
			if me, ok := errors.AsType[*informer.CacheMutationError](err); ok {
				fmt.Println("reported:", me.Key) // a test would call t.Error(err)
			}
		},
	})
	handled := make(chan struct{})
	_, _ = inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(p *Pod, _ bool) {
			p.Image = "nginx:latest" // a bug: p is the cached object
			close(handled)
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	<-handled
	cancel()
	err := <-done
	me, _ := errors.AsType[*informer.CacheMutationError](err)
	fmt.Println("Run:", me.Key, strings.Contains(me.Diff, `"nginx:latest"`))
	// Output:
	// reported: default/web
	// Run: default/web true
}
