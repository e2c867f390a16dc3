package shard_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// world is a group of replicas sharing the keys of a controller, with
// the desired state of every key and a record of all processing.
type world struct {
	t     *testing.T
	store *leaseStore
	opts  shard.Options
	keys  []string
	work  time.Duration // how long one reconcile takes

	mu       sync.Mutex
	desired  map[string]int    // key → generation to reach
	done     map[string]int    // key → generation last reconciled
	running  map[string]string // key → replica processing it now
	spans    []span
	overlaps []string
}

// span is one processing of a key by a replica, as the replica recorded
// it on the (bubble) clock.
type span struct {
	replica, key string
	start, end   time.Time
}

func newWorld(t *testing.T, nkeys int, opts shard.Options, work time.Duration) *world {
	w := &world{t: t, store: newLeaseStore(), opts: opts, work: work,
		desired: map[string]int{}, done: map[string]int{}, running: map[string]string{}}
	for i := range nkeys {
		k := fmt.Sprintf("ns/obj-%03d", i)
		w.keys = append(w.keys, k)
		w.desired[k] = 1
	}
	return w
}

// reconcile is the controller's work: it brings key to its desired
// generation, taking w.work whatever its context says, and records any
// overlap with another replica.
func (w *world) reconcile(replica string) func(context.Context, string) (queue.Result, error) {
	return func(ctx context.Context, key string) (queue.Result, error) {
		w.mu.Lock()
		if other, ok := w.running[key]; ok {
			w.overlaps = append(w.overlaps, fmt.Sprintf("%s started %s at %v while %s processed it", replica, key, time.Now(), other))
		}
		w.running[key] = replica
		gen := w.desired[key]
		sp := span{replica: replica, key: key, start: time.Now()}
		w.mu.Unlock()

		time.Sleep(w.work)

		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.running, key)
		sp.end = time.Now()
		w.spans = append(w.spans, sp)
		if ctx.Err() != nil {
			return queue.Result{}, ctx.Err()
		}
		w.done[key] = max(w.done[key], gen)
		return queue.Result{}, nil
	}
}

// replica is one member running a queue of the world's keys.
type replica struct {
	id     string
	link   *link
	sh     *shard.Shard
	q      *queue.TypedRateLimitingQueue[string]
	cancel context.CancelFunc
	done   chan error
}

// start starts a replica, its queue seeded with every key as its
// informer's initial list would, and stops it when the test ends.
func (w *world) start(id string, opts shard.Options) *replica {
	w.t.Helper()
	r := &replica{id: id, link: &link{s: w.store}, done: make(chan error, 1)}
	sh, err := shard.New(r.link.client(), "ctl", id, opts)
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
	r.cancel = cancel
	go func() {
		r.done <- sh.Run(ctx, func(ctx context.Context) error {
			defer r.q.ShutDown()
			return r.q.Run(ctx, work.Process(w.reconcile(id)), queue.RunOptions[string]{Workers: 2})
		})
	}()
	w.t.Cleanup(func() { cancel(); <-r.done; r.done <- nil })
	return r
}

// stop ends the replica's Run and returns its result.
func (r *replica) stop() error {
	r.cancel()
	err := <-r.done
	r.done <- err
	return err
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
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.overlaps) > 0 {
		w.t.Errorf("%d overlapping processings, first: %s", len(w.overlaps), w.overlaps[0])
	}
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

// firstStart returns when replica first started processing after after.
func (w *world) firstStart(replica string, after time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first time.Time
	for _, sp := range w.spans {
		if sp.replica == replica && sp.start.After(after) && (first.IsZero() || sp.start.Before(first)) {
			first = sp.start
		}
	}
	return first
}

// handoff returns when replica from last ended processing, and when any
// other replica first started one of keys after after.
func (w *world) handoff(from string, keys []string, after time.Time) (lastEnd, firstStart time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	for _, sp := range w.spans {
		switch {
		case sp.replica == from && sp.end.After(lastEnd):
			lastEnd = sp.end
		case sp.replica != from && set[sp.key] && sp.start.After(after) && (firstStart.IsZero() || sp.start.Before(firstStart)):
			firstStart = sp.start
		}
	}
	return lastEnd, firstStart
}

// ownedBy returns the keys whose last processing was by replica.
func (w *world) ownedBy(replica string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	last := map[string]string{}
	for _, sp := range w.spans {
		last[sp.key] = sp.replica
	}
	var out []string
	for k, r := range last {
		if r == replica {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
