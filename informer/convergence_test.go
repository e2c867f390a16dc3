package informer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// TestConvergenceUnderFaults writes to a source that drops watches, fails
// lists and watches, expires versions and answers slowly, while the
// informer feeds a fast handler, a slow one behind a Block buffer, a slow
// one behind a Coalesce buffer, one that panics now and then, and one added
// halfway. Once the writes stop, the cache must equal the source, and so
// must every handler's view (its notifications applied to a map).
func TestConvergenceUnderFaults(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { convergence(t, seed) })
		})
	}
}

func convergence(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	src := memsource.New(memsource.Options[*obj]{
		HistorySize: 20,
		Faults: memsource.Faults{
			CloseWatchesAfter: 7,
			FailLists:         2,
			FailWatches:       3,
			ExpireWatches:     2,
			ListDelay:         time.Second,
			WatchDelay:        time.Second,
		},
	})
	inf := informer.New(src, informer.Options[*obj]{
		ErrorHandler: func(context.Context, error) {}, // faults are expected
		ResyncPeriod: 30 * time.Second,
		// Short backoffs keep the reflector watching most of the time.
		Reflector: reflector.Tuning{Backoff: reflector.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}},
	})

	sleepy := func(next *recorder) informer.Handler[*obj] {
		return informer.HandlerFuncs[*obj]{
			AddFunc:    func(o *obj, initial bool) { time.Sleep(time.Millisecond); next.OnAdd(o, initial) },
			UpdateFunc: func(old, new *obj) { time.Sleep(time.Millisecond); next.OnUpdate(old, new) },
			DeleteFunc: func(d informer.Deleted[*obj]) { time.Sleep(time.Millisecond); next.OnDelete(d) },
		}
	}
	fast, blocked, coalesced, panicky, late := newRecorder(), newRecorder(), newRecorder(), newRecorder(), newRecorder()
	mustAdd(t, inf, fast, informer.HandlerOptions{Name: "fast"})
	mustAdd(t, inf, sleepy(blocked), informer.HandlerOptions{Name: "block", Buffer: informer.BufferOptions{Size: 3, Overflow: informer.Block}})
	mustAdd(t, inf, sleepy(coalesced), informer.HandlerOptions{Name: "coalesce", Buffer: informer.BufferOptions{Size: 2, Overflow: informer.Coalesce}})
	panics := 0
	mustAdd(t, inf, informer.HandlerFuncs[*obj]{
		AddFunc: func(o *obj, initial bool) {
			panicky.OnAdd(o, initial)
			if o.Value%5 == 0 {
				panics++
				panic("add")
			}
		},
		UpdateFunc: func(old, new *obj) {
			panicky.OnUpdate(old, new)
			if new.Value%5 == 0 {
				panics++
				panic("update")
			}
		},
		DeleteFunc: panicky.OnDelete,
	}, informer.HandlerOptions{Name: "panicky", ResyncPeriod: time.Minute})
	start(t, inf)

	churn(t, rng, src, func(round int) {
		if round == 200 {
			mustAdd(t, inf, late, informer.HandlerOptions{Name: "late"})
		}
	})

	want := valuesOf(slices.Values(listSource(t, src)))
	if diff := cmp.Diff(want, valuesOf(slices.Values(inf.Cache().List()))); diff != "" {
		t.Errorf("cache mismatch (-source +cache):\n%s", diff)
	}
	for name, rec := range map[string]*recorder{"fast": fast, "block": blocked, "coalesce": coalesced, "panicky": panicky, "late": late} {
		if diff := cmp.Diff(want, rec.values()); diff != "" {
			t.Errorf("%s handler view mismatch (-source +view):\n%s", name, diff)
		}
		if len(rec.problems) > 0 {
			t.Errorf("%s handler saw inconsistent notifications:\n%s", name, join(rec.problems))
		}
	}
	if panics == 0 {
		t.Error("the panicking handler never panicked: the test lost its point")
	}
	if s := src.Stats(); s.FailedLists+s.FailedWatches == 0 || s.ClosedWatches+s.Expired+s.InjectedExpiries == 0 {
		t.Errorf("source Stats() = %+v: some faults never fired", s)
	}
}

// TestConvergenceOneHandler is TestConvergenceUnderFaults for an informer
// with one unbounded handler, whose reflector applies most watch events
// itself (see route) while relists and resyncs go through the processing
// goroutine.
func TestConvergenceOneHandler(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 7))
				src := memsource.New(memsource.Options[*obj]{
					HistorySize: 20,
					Faults:      memsource.Faults{CloseWatchesAfter: 7, FailLists: 2, FailWatches: 3, ExpireWatches: 2},
				})
				inf := informer.New(src, informer.Options[*obj]{
					ErrorHandler: func(context.Context, error) {},
					ResyncPeriod: 5 * time.Second,
					Reflector:    reflector.Tuning{Backoff: reflector.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}},
				})
				rec := newRecorder()
				mustAdd(t, inf, rec, informer.HandlerOptions{})
				start(t, inf)
				churn(t, rng, src, func(int) {})
				want := valuesOf(slices.Values(listSource(t, src)))
				if diff := cmp.Diff(want, valuesOf(slices.Values(inf.Cache().List()))); diff != "" {
					t.Errorf("cache mismatch (-source +cache):\n%s", diff)
				}
				if diff := cmp.Diff(want, rec.values()); diff != "" {
					t.Errorf("handler view mismatch (-source +view):\n%s", diff)
				}
				if len(rec.problems) > 0 {
					t.Errorf("handler saw inconsistent notifications:\n%s", join(rec.problems))
				}
			})
		})
	}
}

// churn makes 400 random writes over 30 keys of src, with random pauses,
// compactions, dropped watches and new faults, calling each(round) after
// each write; then it clears the faults and waits past every backoff.
func churn(t *testing.T, rng *rand.Rand, src *memsource.Source[*obj], each func(round int)) {
	t.Helper()
	const keys = 30
	value := 0
	for round := range 400 {
		name := fmt.Sprint(rng.IntN(keys))
		value++
		if _, ok := src.Get("ns/" + name); !ok {
			create(t, src, name, value)
		} else if rng.IntN(4) == 0 {
			remove(t, src, name)
		} else {
			update(t, src, name, value)
		}
		each(round)
		switch {
		case rng.IntN(50) == 0:
			src.Compact()
		case rng.IntN(50) == 0:
			src.CloseWatches()
		case rng.IntN(100) == 0:
			src.SetFaults(memsource.Faults{FailLists: 1, FailWatches: 2, ExpireWatches: 1, CloseWatchesAfter: 5})
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
	}
	src.SetFaults(memsource.Faults{})
	time.Sleep(10 * time.Minute) // past every backoff
	synctest.Wait()
}

// listSource returns the source's objects.
func listSource(t *testing.T, src *memsource.Source[*obj]) []*obj {
	t.Helper()
	res, err := src.List(t.Context(), reflectorListAll)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	return res.Items
}
