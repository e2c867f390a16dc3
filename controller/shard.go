package controller

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/typedcache/typedcache/queue"
)

// A Sharder is an Elector that divides the keys of a Manager's
// controllers among the replicas that run it, such as kube/shard's
// *Shard. Its Run calls lead at once on every replica, so that every
// replica runs the controllers; before that, the Manager asks it for the
// ShardGate of each controller it runs, through which the controller's
// workers then process every key.
//
// Keys are named by strings: a controller's key is named by the cache key
// of its primary object (see Options.KeyName), so that every replica
// names a key alike and the primary informer's cache lists the names of
// every key the controller has work for.
type Sharder interface {
	Elector
	// Gate returns the gate of the controller called name, whose keys
	// keys lists and queues. The Sharder calls keys' methods from its
	// own goroutines, never under one of its locks.
	Gate(name string, keys ShardKeys) (ShardGate, error)
}

// ShardKeys is a sharded controller's side of its ShardGate: the
// controller implements it.
type ShardKeys interface {
	// All returns the names of every key the controller has work for:
	// the keys of its primary informer's cache. The Sharder walks it
	// when this replica gains keys, and adds those it gained.
	All() iter.Seq[string]
	// Add queues the key named name: a key this replica gained, or one
	// its gate parked and may now start.
	Add(name string)
}

// A ShardGate decides, for each key a worker takes, whether this replica
// processes it now.
type ShardGate interface {
	// Start decides for the key named name. It returns ok false when the
	// key must not be processed: another replica owns it (it is dropped),
	// or this replica owns it but may not start it yet (it is parked,
	// and the gate adds it again through ShardKeys.Add once it may). The
	// worker then forgets the key. Otherwise it returns the context the
	// key's work runs in, which also ends when this replica may no longer
	// run it (fenced), and end, which the worker calls once the work has
	// returned and which reports whether the work was fenced while it ran.
	Start(ctx context.Context, name string) (wctx context.Context, end func() (fenced bool), ok bool)
}

// ErrNoKeyName is returned by Manager.Run when a controller whose primary
// watch is ForKey, without Options.KeyName, is run by a Manager whose
// Elector is a Sharder: its keys have no names to shard them by.
var ErrNoKeyName = errors.New("controller: a sharded controller with a ForKey primary watch needs Options.KeyName")

// shardable is implemented by controllers: a Manager whose Elector is a
// Sharder gives each its gate before it runs.
type shardable interface {
	shard(s Sharder) error
}

// shard makes c process its keys through the gate s gives it. It fails
// if c runs already, has no primary watch, or has no names for its keys.
func (c *Controller[K]) shard(s Sharder) error {
	if c.queue == nil {
		return errZero
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.started:
		return fmt.Errorf("controller %s: shard: %w", c.name, ErrStarted)
	case !c.hasPrimary:
		return fmt.Errorf("controller %s: %w", c.name, ErrNoPrimary)
	case c.keyName == nil:
		return fmt.Errorf("controller %s: %w", c.name, ErrNoKeyName)
	}
	g, err := s.Gate(c.name, shardKeys[K]{c})
	if err != nil {
		return fmt.Errorf("controller %s: shard: %w", c.name, err)
	}
	c.gate = g
	return nil
}

// shardKeys is the ShardKeys of a controller.
type shardKeys[K comparable] struct{ c *Controller[K] }

func (s shardKeys[K]) All() iter.Seq[string] { return s.c.primary.all() }

func (s shardKeys[K]) Add(name string) {
	k, err := s.c.primary.keyOf(name)
	if err != nil {
		s.c.logger.Error("cannot make the controller's key", "key", name, "error", err)
		return
	}
	s.c.queue.Add(k)
}

// gated processes key through c's gate: reconcile runs only when the gate
// lets it start, in the context the gate gives, and an error of work
// fenced while it ran queues the key again at once, so that the gate
// decides again, instead of retrying it with backoff.
func (c *Controller[K]) gated(ctx context.Context, key K) (res queue.Result, err error) {
	wctx, end, ok := c.gate.Start(ctx, c.keyName(key))
	if !ok {
		return queue.Result{}, nil
	}
	returned := false
	defer func() {
		if !returned {
			end() // a panic goes on to the worker, which retries it
		}
	}()
	res, err = c.reconcileKey(wctx, key)
	returned = true
	if end() && err != nil {
		c.queue.Add(key)
		return queue.Result{}, nil
	}
	return res, err
}
