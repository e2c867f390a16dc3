package integrationtest

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// world is one randomised setup: a source with some capabilities turned
// off and a short history, an informer with fast retries, and handlers
// with different buffers and speeds.
type world struct {
	rng     *rand.Rand
	src     *memsource.Source[*thing]
	lw      *checkingSource
	inf     *informer.Informer[*thing]
	views   []*view
	keys    []string // every key created; some are deleted since
	writes  int
	faults  int
	relists int // faults that force a relist: expiries and compactions
}

func newWorld(t *testing.T, seed uint64) *world {
	rng := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15))
	opts := memsource.Options[*thing]{
		HistorySize:          20 + rng.IntN(200),
		BookmarkInterval:     time.Duration(1+rng.IntN(30)) * time.Second,
		DisablePagination:    rng.IntN(4) == 0,
		DisableBookmarks:     rng.IntN(4) == 0,
		DisableStreamingList: rng.IntN(2) == 0,
	}
	src := memsource.New(opts)
	lw := &checkingSource{Source: src, t: t}
	ro := reflector.Tuning{
		Backoff:         reflector.Backoff{Initial: 10 * time.Millisecond, Max: 200 * time.Millisecond},
		MinWatchTimeout: time.Duration(1+rng.IntN(60)) * time.Second,
	}
	if rng.IntN(2) == 0 {
		ro.PageSize = int64(1 + rng.IntN(10))
	}
	var resync time.Duration
	if rng.IntN(3) == 0 {
		resync = time.Duration(1+rng.IntN(5)) * time.Second
	}
	inf := informer.New[*thing](lw, informer.Options[*thing]{
		Indexers:     indexer.Indexers[*thing]{ownerIndex: ownerOf},
		ResyncPeriod: resync,
		Reflector:    ro,
		Logger:       slog.New(slog.DiscardHandler),
		ErrorHandler: faultsExpected(t),
		// The test runs for ten minutes of the bubble's clock per seed:
		// checking every cached object each second of it would triple its
		// time, and the checks when the cache replaces an object and at shutdown remain.
		MutationDetector: informer.MutationDetector[*thing]{Period: time.Minute},
	})
	return &world{rng: rng, src: src, lw: lw, inf: inf}
}

// addView registers a handler that replays into a view; slow handlers
// sleep up to 20ms (of the bubble's clock) per notification.
func (w *world) addView(t *testing.T, name string, buf informer.BufferOptions, slow bool) {
	t.Helper()
	v := newView(t, name)
	if slow {
		seed := w.rng.Uint64()
		var mu sync.Mutex
		r := rand.New(rand.NewPCG(seed, seed))
		v.onEvent = func(*thing) {
			mu.Lock()
			d := time.Duration(r.IntN(20)) * time.Millisecond
			mu.Unlock()
			time.Sleep(d)
		}
	}
	if _, err := w.inf.AddEventHandlerWithOptions(v, informer.HandlerOptions{Name: name, Buffer: buf}); err != nil {
		t.Fatalf("AddEventHandlerWithOptions(%s): %v", name, err)
	}
	w.views = append(w.views, v)
}

// step makes one random write or fault.
func (w *world) step(t *testing.T) {
	r := w.rng.IntN(100)
	switch {
	case r < 30 || len(w.keys) == 0:
		ns := fmt.Sprintf("ns-%d", w.rng.IntN(3))
		name := fmt.Sprintf("obj-%d", len(w.keys))
		o := &thing{Namespace: ns, Name: name, Owner: fmt.Sprintf("owner-%d", w.rng.IntN(5))}
		if _, err := w.src.Create(o); err != nil {
			t.Fatalf("Create(%s): %v", name, err)
		}
		w.keys = append(w.keys, keys.Join(ns, name))
		w.writes++
	case r < 70:
		o, ok := w.src.Get(w.keys[w.rng.IntN(len(w.keys))])
		if !ok {
			return
		}
		o = o.DeepCopy()
		o.Value++
		if w.rng.IntN(3) == 0 {
			o.Owner = fmt.Sprintf("owner-%d", w.rng.IntN(5))
		}
		if _, err := w.src.Update(o); err != nil {
			t.Fatalf("Update(%s): %v", key(o), err)
		}
		w.writes++
	case r < 90:
		if _, err := w.src.Delete(w.keys[w.rng.IntN(len(w.keys))]); err == nil {
			w.writes++
		}
	default:
		w.fault()
	}
}

func (w *world) fault() {
	w.faults++
	switch w.rng.IntN(7) {
	case 0:
		w.src.CloseWatches()
	case 1:
		w.src.Compact()
		w.src.CloseWatches()
		w.relists++
	case 2:
		w.src.Compact() // running watches that lag expire; others go on
		w.relists++
	case 3:
		w.src.SetFaults(memsource.Faults{ExpireWatches: 1})
		w.src.CloseWatches()
		w.relists++
	case 4:
		w.src.SetFaults(memsource.Faults{FailWatches: 1 + w.rng.IntN(3), FailLists: w.rng.IntN(3)})
		w.src.CloseWatches()
	case 5:
		w.src.SetFaults(memsource.Faults{FailLists: 1, FailWatches: 1, Err: reflector.ErrExpired})
		w.src.CloseWatches()
		w.relists++
	case 6:
		w.src.SetFaults(memsource.Faults{
			CloseWatchesAfter: 1 + w.rng.IntN(5),
			ListDelay:         time.Duration(w.rng.IntN(50)) * time.Millisecond,
			WatchDelay:        time.Duration(w.rng.IntN(50)) * time.Millisecond,
		})
	}
}

// checkConverged compares the cache, its index and every view with the
// source.
func (w *world) checkConverged(t *testing.T) {
	t.Helper()
	want := sourceVersions(t, w.src)
	if diff := cmp.Diff(want, versions(w.inf.Cache().List())); diff != "" {
		t.Errorf("cache mismatch with the source (-want +got):\n%s", diff)
	}
	checkIndex(t, w.inf.Cache())
	for _, v := range w.views {
		if diff := cmp.Diff(want, v.snapshot()); diff != "" {
			t.Errorf("handler %s: view mismatch with the source (-want +got):\n%s", v.name, diff)
		}
	}
}

// TestPipelineConverges drives a source with random writes and faults
// while an informer mirrors it into a cache and four handlers (unbounded,
// slow and coalescing, blocking, added late), then lets it settle
// and checks that the cache, its index and every handler's replayed view
// equal the source, that no call asked for a version the source had not
// reached, and that the number of syncs stays within a few per fault.
func TestPipelineConverges(t *testing.T) {
	for seed := range uint64(100) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, seed)
				for range 20 {
					w.step(t)
				}
				w.addView(t, "unbounded", informer.BufferOptions{}, false)
				w.addView(t, "coalesce", informer.BufferOptions{Size: 1 + w.rng.IntN(4), Overflow: informer.Coalesce}, true)
				// A Block handler that sleeps would hold the informer's
				// delivery lock while it sleeps, and AddEventHandler below
				// waits for that lock on a mutex, which stops the bubble's
				// clock: the Block handler is slow only through its tiny
				// buffer.
				w.addView(t, "block", informer.BufferOptions{Size: 1 + w.rng.IntN(2), Overflow: informer.Block}, false)

				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() {
					if err := w.inf.Run(ctx); err != nil {
						t.Errorf("Run() = %v", err)
					}
				})
				for i := range 400 {
					if i == 200 {
						w.addView(t, "late", informer.BufferOptions{}, false)
					}
					w.step(t)
					time.Sleep(time.Duration(w.rng.IntN(50)) * time.Millisecond)
				}
				w.src.SetFaults(memsource.Faults{})
				time.Sleep(10 * time.Minute) // beyond every backoff and watch timeout
				synctest.Wait()
				w.checkConverged(t)

				// Each fault costs a few syncs at most (a failed stream,
				// its list fallback, a retry); a slow consumer may lag
				// out of the short history once per compaction.
				if max := int64(3*w.faults + 3); w.lw.syncs() > max {
					t.Errorf("%d syncs (lists %d, streams %d) for %d faults (%d forcing a relist), want at most %d",
						w.lw.syncs(), w.lw.lists.Load(), w.lw.streams.Load(), w.faults, w.relists, max)
				}
				t.Logf("%d writes, %d faults (%d relists), %d lists, %d continues, %d streams, %d watches",
					w.writes, w.faults, w.relists, w.lw.lists.Load(), w.lw.continues.Load(), w.lw.streams.Load(), w.lw.watches.Load())
				cancel()
				wg.Wait()
			})
		})
	}
}
