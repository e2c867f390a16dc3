package reflector_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// watchLog is a source that records when each Watch call succeeded.
type watchLog struct {
	*memsource.Source[*item]
	mu     sync.Mutex
	opened []time.Time
}

func (l *watchLog) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*item], error) {
	w, err := l.Source.Watch(ctx, opts)
	if err == nil {
		l.mu.Lock()
		l.opened = append(l.opened, time.Now())
		l.mu.Unlock()
	}
	return w, err
}

// firstOpenedAfter returns when the first watch after t was opened.
func (l *watchLog) firstOpenedAfter(t time.Time) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.opened, func(at time.Time) bool { return !at.Before(t) })
	if i < 0 {
		return time.Time{}, false
	}
	return l.opened[i], true
}

// TestRecoveryAfterRepeatedOutages runs a reflector for ten minutes
// against a source that fails every list and watch for 5 seconds every 30
// seconds (its watches closed at the start of each outage) while a writer
// changes an object every second. After every outage the reflector must
// be watching again within 1.6 seconds, the most the default backoff waits
// in an outage's first 8 seconds, however many outages came before; and
// the store must end equal to the source.
func TestRecoveryAfterRepeatedOutages(t *testing.T) {
	const (
		cycle   = 30 * time.Second
		outage  = 5 * time.Second
		cycles  = 20
		maxWait = 1600 * time.Millisecond
	)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		src := memsource.New(memsource.Options[*item]{})
		lw := &watchLog{Source: src}
		m := newMapMirror(ctx)
		r := reflector.New(lw, m.store(), reflector.Options{
			Logger:       discardLogger,
			ErrorHandler: func(context.Context, error) {},
		})
		r.SetRand(rand.New(rand.NewPCG(17, 17)).Float64)
		var wg sync.WaitGroup
		wg.Go(func() { r.Run(ctx) })
		wg.Go(func() { // the writer: injected faults fail lists and watches, not writes
			for i := 0; ctx.Err() == nil; i++ {
				if _, err := src.Update(&item{name: fmt.Sprint("o", i%10), val: i}); err != nil {
					_, _ = src.Create(&item{name: fmt.Sprint("o", i%10), val: i})
				}
				sleep(ctx, time.Second)
			}
		})

		var blind []time.Duration
		for range cycles {
			time.Sleep(cycle - outage)
			src.SetFaults(memsource.Faults{FailLists: 1 << 30, FailWatches: 1 << 30})
			src.CloseWatches()
			time.Sleep(outage)
			src.SetFaults(memsource.Faults{})
			recovered := time.Now()
			time.Sleep(maxWait)
			synctest.Wait()
			at, ok := lw.firstOpenedAfter(recovered)
			if !ok {
				t.Fatalf("outage %d: not watching %v after the source recovered", len(blind)+1, maxWait)
			}
			blind = append(blind, at.Sub(recovered).Round(time.Millisecond))
		}
		cancel()
		wg.Wait()

		t.Logf("blind time after each of %d outages of %v every %v: %v", cycles, outage, cycle, blind)
		slices.Sort(blind)
		t.Logf("median %v, max %v", blind[len(blind)/2], blind[len(blind)-1])
		if diff := cmp.Diff(sourceState(t, src), m.state()); diff != "" {
			t.Errorf("store after the outages mismatch (-source +store):\n%s", diff)
		}
	})
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
