package shard_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/typedcache/typedcache/kube/internal/leasetest"
	"github.com/typedcache/typedcache/kube/internal/worklog"
	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// world is a group of replicas sharing the keys of a controller, with
// the desired state of every key and a record of all processing.
type world struct {
	t     *testing.T
	store *leasetest.Store
	opts  shard.Options
	keys  []string
	work  time.Duration // how long one reconcile takes

	log *worklog.Log

	mu      sync.Mutex
	desired map[string]int // key → generation to reach
	done    map[string]int // key → generation last reconciled
}

func newWorld(t *testing.T, nkeys int, opts shard.Options, work time.Duration) *world {
	w := &world{t: t, store: leasetest.NewStore(), opts: opts, work: work, log: worklog.New(nil),
		desired: map[string]int{}, done: map[string]int{}}
	for i := range nkeys {
		k := fmt.Sprintf("ns/obj-%03d", i)
		w.keys = append(w.keys, k)
		w.desired[k] = 1
	}
	return w
}

// reconcile is the controller's work: it brings key to its desired
// generation, taking w.work whatever its context says; the log records
// any overlap with another replica.
func (w *world) reconcile(replica string) func(context.Context, string) (queue.Result, error) {
	return func(ctx context.Context, key string) (queue.Result, error) {
		sp := w.log.Begin(replica, key)
		defer w.log.End(sp)
		w.mu.Lock()
		gen := w.desired[key]
		w.mu.Unlock()

		time.Sleep(w.work)

		w.mu.Lock()
		defer w.mu.Unlock()
		if ctx.Err() != nil {
			return queue.Result{}, ctx.Err()
		}
		w.done[key] = max(w.done[key], gen)
		return queue.Result{}, nil
	}
}

// threeMembers starts a world of 90 keys whose reconciles take work, and
// members a, b and c, and lets them settle for a minute.
func threeMembers(t *testing.T, opts shard.Options, work time.Duration) (w *world, a, b, c *replica) {
	w = newWorld(t, 90, opts, work)
	a, b, c = w.start("a", opts), w.start("b", opts), w.start("c", opts)
	time.Sleep(time.Minute)
	return w, a, b, c
}

// replica is one member running a queue of the world's keys.
type replica struct {
	id   string
	link *leasetest.Link
	sh   *shard.Shard
	q    *queue.TypedRateLimitingQueue[string]
	// stop ends the replica's Run, once, and returns its result.
	stop func() error
}

// start starts a replica, its queue seeded with every key as its
// informer's initial list would, and stops it when the test ends.
func (w *world) start(id string, opts shard.Options) *replica {
	w.t.Helper()
	r := &replica{id: id, link: leasetest.NewLink(w.store)}
	sh, err := shard.New(r.link.Client(), "ctl", id, opts)
	if err != nil {
		w.t.Fatalf("shard.New: %v", err)
	}
	r.sh = sh
	r.q = queue.NewTypedRateLimitingQueue(queue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second), queue.Options{})
	work, err := shard.NewWork(sh, r.q, func(k string) string { return k }, slices.Values(w.keys))
	if err != nil {
		w.t.Fatalf("shard.NewWork: %v", err)
	}
	for _, k := range w.keys {
		r.q.Add(k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r.stop = sync.OnceValue(func() error { cancel(); return <-done })
	go func() {
		done <- sh.Run(ctx, func(ctx context.Context) error {
			defer r.q.ShutDown()
			return r.q.Run(ctx, work.Process(w.reconcile(id)), queue.RunOptions[string]{Workers: 2})
		})
	}()
	w.t.Cleanup(func() { r.stop() })
	return r
}

// touch changes the desired state of keys and tells every replica, as
// their informers would.
func (w *world) touch(keys []string, rs ...*replica) {
	w.mu.Lock()
	for _, k := range keys {
		w.desired[k]++
	}
	w.mu.Unlock()
	for _, r := range rs {
		for _, k := range keys {
			r.q.Add(k)
		}
	}
}

// check fails the test on any overlap, and on any key whose desired
// state was not reached.
func (w *world) check() {
	w.t.Helper()
	if o := w.log.Overlaps(); len(o) > 0 {
		w.t.Errorf("%d overlapping processings, first: %s", len(o), o[0])
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var stale []string
	for _, k := range slices.Sorted(maps.Keys(w.desired)) {
		if w.done[k] != w.desired[k] {
			stale = append(stale, fmt.Sprintf("%s at %d want %d", k, w.done[k], w.desired[k]))
		}
	}
	if len(stale) > 0 {
		w.t.Errorf("%d keys not converged, first: %v", len(stale), stale[:min(3, len(stale))])
	}
}
