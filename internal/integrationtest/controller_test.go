package integrationtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
	"github.com/typedcache/typedcache/reflector"
)

// controller keeps, for every parent p, exactly p.Value%4 children named
// "<p>-c<i>" owned by p, through two informers and a rate-limiting queue.
// It counts, per parent key, the adds it made (gen) and the latest add
// each successful reconcile covered (done): once everything is quiet the
// two must be equal, or the queue lost an add.
type controller struct {
	parents, children       *memsource.Source[*thing]
	parentInf, childInf     *informer.Informer[*thing]
	q                       *queue.TypedRateLimitingQueue[string]
	failing                 atomic.Bool // reconciles fail at random while set
	rngMu                   sync.Mutex
	rng                     *rand.Rand
	mu                      sync.Mutex
	gen, done               map[string]uint64
	reconciles, failures    atomic.Int64
	creates, deletes, stray atomic.Int64
}

func newController(t *testing.T, seed uint64, parents, children *checkingSource, resync time.Duration) *controller {
	ro := reflector.Tuning{
		Backoff:         reflector.Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond},
		MinWatchTimeout: 30 * time.Second,
	}
	quiet := slog.New(slog.DiscardHandler)
	c := &controller{
		parents:  parents.Source,
		children: children.Source,
		parentInf: informer.New[*thing](parents, informer.Options[*thing]{
			ResyncPeriod: resync, Reflector: ro, Logger: quiet, ErrorHandler: faultsExpected(t),
		}),
		childInf: informer.New[*thing](children, informer.Options[*thing]{
			Indexers:  indexer.Indexers[*thing]{ownerIndex: ownerOf},
			Reflector: ro, Logger: quiet, ErrorHandler: faultsExpected(t),
		}),
		q:    queue.NewTypedRateLimitingQueue[string](nil, queue.Options{Logger: quiet}),
		rng:  rand.New(rand.NewPCG(seed, ^seed)),
		gen:  map[string]uint64{},
		done: map[string]uint64{},
	}
	enqueue := func(k string) {
		c.mu.Lock()
		c.gen[k]++
		c.mu.Unlock()
		c.q.Add(k)
	}
	if _, err := c.parentInf.AddEventHandler(informer.HandlerFuncs[*thing]{
		AddFunc:    func(p *thing, _ bool) { enqueue(key(p)) },
		UpdateFunc: func(_, p *thing) { enqueue(key(p)) },
		DeleteFunc: func(d informer.Deleted[*thing]) { enqueue(d.Key) },
	}); err != nil {
		t.Fatalf("AddEventHandler(parents): %v", err)
	}
	if _, err := c.childInf.AddEventHandler(informer.HandlerFuncs[*thing]{
		AddFunc:    func(ch *thing, _ bool) { enqueue(ch.Owner) },
		UpdateFunc: func(_, ch *thing) { enqueue(ch.Owner) },
		DeleteFunc: func(d informer.Deleted[*thing]) {
			if d.Object != nil {
				enqueue(d.Object.Owner)
			}
		},
	}); err != nil {
		t.Fatalf("AddEventHandler(children): %v", err)
	}
	return c
}

func childName(parent string, i int) string { return fmt.Sprintf("%s-c%d", parent, i) }

var errInjected = errors.New("injected reconcile failure")

// reconcile makes the children of the parent with key k match it.
func (c *controller) reconcile(_ context.Context, k string) error {
	c.reconciles.Add(1)
	c.mu.Lock()
	g := c.gen[k]
	c.mu.Unlock()
	if c.failing.Load() {
		c.rngMu.Lock()
		fail := c.rng.IntN(10) == 0
		c.rngMu.Unlock()
		if fail {
			c.failures.Add(1)
			return errInjected
		}
	}
	ns, name, err := keys.Split(k)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	if p, ok := c.parentInf.Cache().GetByKey(k); ok {
		for i := range p.Value % 4 {
			want[childName(name, i)] = true
		}
	}
	have, err := c.childInf.Cache().ByIndex(ownerIndex, k)
	if err != nil {
		return err
	}
	var errs []error
	for _, ch := range have {
		if want[ch.Name] {
			delete(want, ch.Name)
			continue
		}
		if _, err := c.children.Delete(key(ch)); err != nil && !errors.Is(err, memsource.ErrNotFound) {
			errs = append(errs, err)
		} else if err == nil {
			c.deletes.Add(1)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(want)) {
		if _, err := c.children.Create(&thing{Namespace: ns, Name: n, Owner: k}); err != nil {
			errs = append(errs, err)
		} else {
			c.creates.Add(1)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.mu.Lock()
	c.done[k] = max(c.done[k], g)
	c.mu.Unlock()
	return nil
}

// problems returns what differs from the controller's goal: children
// missing or extra, caches behind their sources, adds never processed.
func (c *controller) problems(t *testing.T) []string {
	var out []string
	parents := sourceVersions(t, c.parents)
	res, err := c.children.List(context.Background(), reflector.ListOptions{})
	if err != nil {
		t.Fatalf("List(children): %v", err)
	}
	owned := map[string][]string{}
	for _, ch := range res.Items {
		owned[ch.Owner] = append(owned[ch.Owner], ch.Name)
	}
	for k := range parents {
		p, _ := c.parents.Get(k)
		var want []string
		for i := range p.Value % 4 {
			want = append(want, childName(p.Name, i))
		}
		got := owned[k]
		delete(owned, k)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			out = append(out, describe("parent %s@%s wants children %v, has %v", k, p.ResourceVersion, want, got))
		}
	}
	for k, names := range owned {
		out = append(out, describe("deleted parent %s still has children %v", k, names))
	}
	if diff := cmp.Diff(parents, versions(c.parentInf.Cache().List())); diff != "" {
		out = append(out, describe("parent cache mismatch (-source +cache):\n%s", diff))
	}
	if diff := cmp.Diff(versions(res.Items), versions(c.childInf.Cache().List())); diff != "" {
		out = append(out, describe("child cache mismatch (-source +cache):\n%s", diff))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, g := range c.gen {
		if c.done[k] != g {
			out = append(out, describe("key %s: %d adds, the last successful reconcile covered %d", k, g, c.done[k]))
		}
	}
	return out
}

// TestControllerConverges runs a parent/child controller (two informers,
// an owner index, a rate-limiting queue, two workers, random reconcile
// failures) against two sources that a driver changes and faults, as the
// samplecontroller does, and checks after quiescence that every parent has
// exactly its children, that the caches equal the sources and that every
// queue add was covered by a successful reconcile. The parent informer
// resyncs every second: without a resync a child created and deleted
// during a relist of the children is never noticed (see
// TestCreateDeleteDuringRelistIsNeverNotified).
func TestControllerConverges(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, seed+1))
				history := 30 + rng.IntN(100)
				parents := &checkingSource{Source: memsource.New(memsource.Options[*thing]{HistorySize: history, DisableStreamingList: rng.IntN(2) == 0}), t: t}
				children := &checkingSource{Source: memsource.New(memsource.Options[*thing]{HistorySize: history, DisableStreamingList: rng.IntN(2) == 0}), t: t}
				var parentKeys []string
				createParent := func() {
					p := &thing{Namespace: fmt.Sprintf("ns-%d", rng.IntN(2)), Name: fmt.Sprintf("p%d", len(parentKeys)), Value: rng.IntN(4)}
					if _, err := parents.Create(p); err != nil {
						t.Fatalf("Create(%s): %v", p.Name, err)
					}
					parentKeys = append(parentKeys, key(p))
				}
				for range 10 {
					createParent()
				}
				c := newController(t, seed, parents, children, time.Second)
				c.failing.Store(true)

				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() { _ = c.parentInf.Run(ctx) })
				wg.Go(func() { _ = c.childInf.Run(ctx) })
				wg.Go(func() {
					if err := informer.WaitForCacheSync(ctx, c.parentInf, c.childInf); err != nil {
						return
					}
					reconcile := func(ctx context.Context, k string) (queue.Result, error) { return queue.Result{}, c.reconcile(ctx, k) }
					_ = c.q.Run(ctx, reconcile, queue.RunOptions[string]{Workers: 2})
				})

				faults := 0
				for range 500 {
					time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
					switch r := rng.IntN(100); {
					case r < 10:
						createParent()
					case r < 45:
						if p, ok := parents.Get(parentKeys[rng.IntN(len(parentKeys))]); ok {
							p = p.DeepCopy()
							p.Value = rng.IntN(8)
							if _, err := parents.Update(p); err != nil {
								t.Fatalf("Update(%s): %v", key(p), err)
							}
						}
					case r < 50:
						_, _ = parents.Delete(parentKeys[rng.IntN(len(parentKeys))])
					case r < 80:
						pk := parentKeys[rng.IntN(len(parentKeys))]
						ns, name, _ := keys.Split(pk)
						_, _ = children.Delete(keys.Join(ns, childName(name, rng.IntN(4))))
					case r < 85:
						pk := parentKeys[rng.IntN(len(parentKeys))]
						ns, name, _ := keys.Split(pk)
						if _, err := children.Create(&thing{Namespace: ns, Name: fmt.Sprintf("%s-s%d", name, rng.IntN(3)), Owner: pk}); err == nil {
							c.stray.Add(1)
						}
					default:
						faults++
						src := []*memsource.Source[*thing]{parents.Source, children.Source}[rng.IntN(2)]
						switch rng.IntN(4) {
						case 0:
							src.CloseWatches()
						case 1:
							src.Compact()
							src.CloseWatches()
						case 2:
							src.SetFaults(memsource.Faults{ExpireWatches: 1})
							src.CloseWatches()
						case 3:
							src.SetFaults(memsource.Faults{FailWatches: 1, FailLists: 1})
							src.CloseWatches()
						}
					}
				}
				parents.SetFaults(memsource.Faults{})
				children.SetFaults(memsource.Faults{})
				c.failing.Store(false)
				time.Sleep(2 * time.Minute)
				synctest.Wait()
				for _, p := range c.problems(t) {
					t.Error(p)
				}
				t.Logf("%d faults, %d reconciles (%d failed), %d children created, %d deleted, %d strays; syncs: parents %d, children %d",
					faults, c.reconciles.Load(), c.failures.Load(), c.creates.Load(), c.deletes.Load(), c.stray.Load(), parents.syncs(), children.syncs())
				cancel()
				c.q.ShutDown()
				wg.Wait()
			})
		})
	}
}
