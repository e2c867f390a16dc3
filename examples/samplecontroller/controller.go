package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/typedcache/typedcache/controller"
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
	ctrl   *controller.Controller[FooKey] // a Manager runs it
	foos   *memsource.Source[*Foo]
	bars   *memsource.Source[*Bar]
	fooInf *informer.Informer[*Foo]
	barInf *informer.Informer[*Bar]
	stats  counters
}

// NewController creates the factory's informers for the two sources and a
// controller of Foos that watches them, reconciling with workers
// goroutines.
func NewController(f *informer.Factory, foos *memsource.Source[*Foo], bars *memsource.Source[*Bar], workers int, log *slog.Logger) (*Controller, error) {
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
	}
	// The controller's priority queue serves the driver's changes before
	// the initial lists and the resyncs (every second here).
	c.ctrl = controller.New("foos", c.reconcile, controller.Options[FooKey]{
		MaxConcurrentReconciles: workers, ErrorLevel: errorLevel, Logger: log,
	})
	if err := controller.ForKey(c.ctrl, c.fooInf, fooKey, counted[*Foo](&c.stats.events)); err != nil {
		return nil, err
	}
	if err := controller.Watches(c.ctrl, c.barInf, ownerKey, counted[*Bar](&c.stats.events)); err != nil {
		return nil, err
	}
	return c, nil
}

// fooKey makes a Foo's key from its cache key.
func fooKey(key string) (FooKey, error) {
	ns, name, err := keys.Split(key)
	return FooKey{ns, name}, err
}

// ownerKey maps a Bar to the key of the Foo that owns it, if any.
func ownerKey(b *Bar) []FooKey {
	if b.Owner == "" {
		return nil
	}
	return []FooKey{{b.Namespace, b.Owner}}
}

// counted returns a predicate that accepts every event and counts it in n.
func counted[T any](n *atomic.Uint64) controller.Predicate[T] {
	return controller.Predicate[T]{
		Create: func(T) bool { n.Add(1); return true },
		Update: func(_, _ T) bool { n.Add(1); return true },
		Delete: func(informer.Deleted[T]) bool { n.Add(1); return true },
	}
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
