package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
	"github.com/typedcache/typedcache/reflector"
)

// ownerIndex indexes Bars by the key of the Foo that owns them.
const ownerIndex = "owner"

// barOwnerKey gives a Bar without an owner no value.
func barOwnerKey(b *Bar) ([]string, error) {
	if b.Owner == "" {
		return nil, nil
	}
	return []string{keys.Join(b.Namespace, b.Owner)}, nil
}

// quickRetries shortens the reflectors' backoff: the driver injects a fault
// every few dozen milliseconds, and the default delays (0.8s at the least,
// up to 30s) would keep the caches behind for most of a short demo. A real
// controller keeps the defaults.
var quickRetries = reflector.Tuning{
	Backoff: reflector.Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond},
}

// counters are the controller's activity, read by the progress printer.
type counters struct {
	events     atomic.Uint64 // handler notifications received
	reconciles atomic.Uint64 // reconcile calls
	failures   atomic.Uint64 // reconcile calls that returned an error (retried)
	creates    atomic.Uint64 // children created
	updates    atomic.Uint64 // children updated
	deletes    atomic.Uint64 // children deleted
}

// Controller keeps, for every Foo, exactly Foo.Replicas Bars named
// "<foo>-<i>" running Foo.Image, and no other Bar owned by it.
type Controller struct {
	foos   *memsource.Source[*Foo]
	bars   *memsource.Source[*Bar]
	fooInf *informer.Informer[*Foo]
	barInf *informer.Informer[*Bar]
	queue  *queue.TypedPriorityQueue[FooKey]
	log    *slog.Logger
	stats  counters
}

// NewController wires the controller to a factory's informers for the two
// sources and registers its event handlers.
func NewController(f *informer.Factory, foos *memsource.Source[*Foo], bars *memsource.Source[*Bar], log *slog.Logger) (*Controller, error) {
	c := &Controller{
		foos: foos,
		bars: bars,
		// A resync re-delivers every Foo each second, so that a child created and
		// deleted while the Bar watch was down (a relist cannot show what came
		// and went in between) is noticed. A real controller resyncs every few
		// minutes; this demo disturbs the world far more often.
		fooInf: informer.ForWithOptions(f, foos, informer.Options[*Foo]{ResyncPeriod: time.Second, Reflector: quickRetries}),
		barInf: informer.ForWithOptions(f, bars, informer.Options[*Bar]{
			Indexers:  indexer.Indexers[*Bar]{ownerIndex: barOwnerKey},
			Reflector: quickRetries,
		}),
		// A priority queue: the initial lists and the resyncs (every second
		// here) go in at PriorityLow, behind the changes the driver makes.
		queue: queue.NewTypedPriorityQueue(queue.DefaultTypedControllerRateLimiter[FooKey](), queue.PriorityOptions{
			Options: queue.Options{Name: "foos", Logger: log},
		}),
		log: log,
	}
	fooKey := func(key string, f *Foo) (FooKey, bool) {
		c.stats.events.Add(1)
		if f == nil { // a deletion may come without a last state: its key remains
			ns, name, err := keys.Split(key)
			return FooKey{ns, name}, err == nil
		}
		return FooKey{f.Namespace, f.Name}, true
	}
	ownerKey := func(_ string, b *Bar) (FooKey, bool) {
		c.stats.events.Add(1)
		if b == nil || b.Owner == "" { // a Bar deleted with no known state names no owner
			return FooKey{}, false
		}
		return FooKey{b.Namespace, b.Owner}, true
	}
	if _, err := c.fooInf.AddEventHandler(informer.PriorityEnqueue(c.queue, fooKey)); err != nil {
		return nil, err
	}
	if _, err := c.barInf.AddEventHandler(informer.PriorityEnqueue(c.queue, ownerKey)); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for both caches, then reconciles with workers goroutines until
// ctx ends, and returns nil then, like every Run of the library.
func (c *Controller) Run(ctx context.Context, workers int) error {
	if err := informer.WaitForCacheSync(ctx, c.fooInf, c.barInf); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before the caches synced
		}
		return err
	}
	c.log.Info("caches synced", "foos", c.fooInf.Cache().Len(), "bars", c.barInf.Cache().Len())
	return c.queue.Run(ctx, c.reconcile, queue.RunOptions[FooKey]{Workers: workers, ErrorLevel: errorLevel})
}

// reconcile makes the children of one Foo match it, reading only the caches
// and writing to the sources. Any write error (a conflict with a newer
// version, a child that appeared meanwhile) is returned, and the queue
// retries the key with backoff.
func (c *Controller) reconcile(_ context.Context, key FooKey) (queue.Result, error) {
	c.stats.reconciles.Add(1)
	if err := c.sync(key); err != nil {
		c.stats.failures.Add(1)
		return queue.Result{}, err
	}
	return queue.Result{}, nil
}

// errorLevel logs at Debug the failures that are routine for a controller
// reading from caches: a write based on a cache that was behind the source
// (a conflict, or a child that already exists), and the faults the driver
// injects. The queue retries them all; anything else is logged at Error.
func errorLevel(err error) slog.Level {
	if routine(err) {
		return slog.LevelDebug
	}
	return slog.LevelError
}

// routine reports whether err, and every error joined in it, is routine.
func routine(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !routine(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, memsource.ErrConflict) || errors.Is(err, memsource.ErrAlreadyExists) || errors.Is(err, memsource.ErrInjected)
}

func (c *Controller) sync(key FooKey) error {
	children, err := c.barInf.Cache().ByIndex(ownerIndex, keys.Join(key.Namespace, key.Name))
	if err != nil {
		return err
	}
	foo, exists := c.fooInf.Lister().Get(key.Namespace, key.Name)
	want := map[string]bool{}
	if exists {
		for i := range foo.Replicas {
			want[childName(foo.Name, i)] = true
		}
	}
	var errs []error
	have := map[string]bool{}
	for _, b := range children {
		switch {
		case !want[b.Name]:
			errs = append(errs, c.deleteBar(b))
		case b.Image != foo.Image:
			have[b.Name] = true
			errs = append(errs, c.updateBar(b, foo.Image))
		default:
			have[b.Name] = true
		}
	}
	for name := range want {
		if !have[name] {
			errs = append(errs, c.createBar(&Bar{Meta: Meta{Namespace: key.Namespace, Name: name}, Owner: key.Name, Image: foo.Image}))
		}
	}
	return errors.Join(errs...)
}

func (c *Controller) createBar(b *Bar) error {
	if _, err := c.bars.Create(b); err != nil {
		return fmt.Errorf("create %s/%s: %w", b.Namespace, b.Name, err)
	}
	c.stats.creates.Add(1)
	return nil
}

func (c *Controller) updateBar(cached *Bar, image string) error {
	b := cached.DeepCopy() // cached objects are shared: change a copy
	b.Image = image
	if _, err := c.bars.Update(b); err != nil { // fails with ErrConflict if the cache was stale
		return fmt.Errorf("update %s/%s: %w", b.Namespace, b.Name, err)
	}
	c.stats.updates.Add(1)
	return nil
}

func (c *Controller) deleteBar(b *Bar) error {
	_, err := c.bars.Delete(keys.Join(b.Namespace, b.Name))
	if errors.Is(err, memsource.ErrNotFound) {
		return nil // already gone: the cache was a little behind
	}
	if err != nil {
		return fmt.Errorf("delete %s/%s: %w", b.Namespace, b.Name, err)
	}
	c.stats.deletes.Add(1)
	return nil
}
