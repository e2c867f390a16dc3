package informer_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
)

// errorLog is an ErrorHandler that records the errors it receives.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) handle(_ context.Context, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// mutations returns the CacheMutationErrors received, as "key: diff"
// lines where diff keeps only the changed lines.
func (l *errorLog) mutations() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var got []string
	for _, err := range l.errs {
		if me, ok := errors.AsType[*informer.CacheMutationError](err); ok {
			got = append(got, me.Key+": "+changedLines(me.Diff))
		}
	}
	return got
}

// changedLines returns the lines of a go-cmp diff that start with - or +,
// with their spaces squeezed, joined with a space.
func changedLines(diff string) string {
	var out []string
	for line := range strings.Lines(diff) {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+") {
			out = append(out, line[:1]+strings.Join(strings.Fields(line[1:]), " "))
		}
	}
	return strings.Join(out, " ")
}

// modify applies change to cached objects, then updates "b" in the source.
// The informer's write of "b" orders the change before the detector's next
// periodic check, as the race detector requires: a modification that
// races with a check is a data race it also reports.
func modify(t *testing.T, src *memsource.Source[*obj], change func()) {
	t.Helper()
	change()
	update(t, src, "b", 7)
	synctest.Wait()
}

// runDetected runs inf until stop is called, which returns Run's error,
// or the test ends.
func runDetected[T keys.Object](t *testing.T, inf *informer.Informer[T]) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	stop = sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { _ = stop() })
	return stop
}

// detected returns informer options with the detector on and errors
// recorded in log.
func detected(log *errorLog) informer.Options[*obj] {
	return informer.Options[*obj]{
		ErrorHandler:     log.handle,
		MutationDetector: informer.MutationDetector[*obj]{Enabled: true, Period: time.Minute},
	}
}

// A handler or lister user that modifies a cached object makes the
// detector report the key and the diff, and Run return the first report;
// code that only reads leaves it silent.
func TestMutationDetector(t *testing.T) {
	const diffA = `-Value: 1, +Value: 99,`
	tests := []struct {
		name string
		// mutate modifies a cached object, or not; it runs once the
		// informer has synced on "a" at value 1 and "b" at 2.
		mutate func(t *testing.T, inf *informer.Informer[*obj], src *memsource.Source[*obj])
		// reported are the mutations reported before the period ends.
		reported []string
		// atStop are the mutations reported in all, once Run returned.
		atStop []string
	}{
		{
			name:   "nothing modified",
			mutate: func(*testing.T, *informer.Informer[*obj], *memsource.Source[*obj]) {},
		},
		{
			name: "updates and deletions, nothing modified",
			mutate: func(t *testing.T, _ *informer.Informer[*obj], src *memsource.Source[*obj]) {
				update(t, src, "a", 3)
				remove(t, src, "b")
				create(t, src, "c", 4)
			},
		},
		{
			name: "through a lister, found by the periodic check",
			mutate: func(t *testing.T, inf *informer.Informer[*obj], src *memsource.Source[*obj]) {
				a, _ := inf.Lister().Get("ns", "a")
				modify(t, src, func() { a.Value = 99 })
			},
			reported: []string{"ns/a: " + diffA},
			atStop:   []string{"ns/a: " + diffA},
		},
		{
			name: "through the cache, then replaced: the old object is still checked",
			mutate: func(t *testing.T, inf *informer.Informer[*obj], src *memsource.Source[*obj]) {
				a, _ := inf.Cache().GetByKey("ns/a")
				a.Value = 99
				update(t, src, "a", 5)
				synctest.Wait()
				remove(t, src, "a")
			},
			reported: []string{"ns/a: " + diffA},
			atStop:   []string{"ns/a: " + diffA},
		},
		{
			name: "two objects, reported once each, the replaced one when replaced",
			mutate: func(t *testing.T, inf *informer.Informer[*obj], src *memsource.Source[*obj]) {
				a, _ := inf.Lister().Get("ns", "a")
				b, _ := inf.Lister().Get("ns", "b")
				modify(t, src, func() { a.Value, b.Value = 99, 98 })
			},
			reported: []string{`ns/b: -Value: 2, +Value: 98,`, "ns/a: " + diffA},
			atStop:   []string{`ns/b: -Value: 2, +Value: 98,`, "ns/a: " + diffA},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 2))
				log := &errorLog{}
				inf := informer.New(src, detected(log))
				stop := runDetected(t, inf)
				if err := inf.WaitForSync(t.Context()); err != nil {
					t.Fatalf("WaitForSync() = %v", err)
				}
				tt.mutate(t, inf, src)
				time.Sleep(time.Minute)
				synctest.Wait()
				if diff := cmp.Diff(tt.reported, log.mutations()); diff != "" {
					t.Errorf("reports after a period mismatch (-want +got):\n%s", diff)
				}
				err := stop()
				if diff := cmp.Diff(tt.atStop, log.mutations()); diff != "" {
					t.Errorf("reports at shutdown mismatch (-want +got):\n%s", diff)
				}
				checkRunError(t, err, tt.atStop)
			})
		})
	}
}

// checkRunError checks that Run returned the first of the mutations
// reported, or nil if there were none.
func checkRunError(t *testing.T, err error, reported []string) {
	t.Helper()
	if len(reported) == 0 {
		if err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
		return
	}
	me, ok := errors.AsType[*informer.CacheMutationError](err)
	if !ok {
		t.Fatalf("Run() = %v, want a *CacheMutationError", err)
	}
	if got := me.Key + ": " + changedLines(me.Diff); got != reported[0] {
		t.Errorf("Run() reports %q, want %q", got, reported[0])
	}
	if msg := err.Error(); !strings.Contains(msg, me.Key) || !strings.Contains(msg, me.Diff) {
		t.Errorf("Run() error %q lacks its key or diff", msg)
	}
}

// A handler that modifies the objects it is handed, old states included,
// is reported at shutdown, once its calls have returned.
func TestMutationDetectorHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		log := &errorLog{}
		inf := informer.New(src, detected(log))
		mustAdd(t, inf, informer.HandlerFuncs[*obj]{
			UpdateFunc: func(old, _ *obj) { old.Name = "scribbled" },
		}, informer.HandlerOptions{})
		stop := runDetected(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		update(t, src, "a", 2)
		synctest.Wait()
		err := stop()
		want := []string{`ns/a: -Name: "a", +Name: "scribbled",`}
		if diff := cmp.Diff(want, log.mutations()); diff != "" {
			t.Errorf("reports mismatch (-want +got):\n%s", diff)
		}
		checkRunError(t, err, want)
	})
}

// The detector holds only so many replaced objects: the oldest is checked
// one last time when it is dropped, which catches a modification made
// after the cache replaced it.
func TestMutationDetectorDropsCheckedCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("b", 0))
		log := &errorLog{}
		opts := detected(log)
		opts.MutationDetector.Period = 24 * time.Hour // only the drop checks
		inf := informer.New(src, opts)
		stop := runDetected(t, inf)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		a, _ := inf.Lister().Get("ns", "a")
		remove(t, src, "a")
		synctest.Wait()
		a.Value = 99
		for i := range informer.RetiredLimit - 1 {
			update(t, src, "b", i+1)
			synctest.Wait()
		}
		if got := log.mutations(); len(got) != 0 {
			t.Fatalf("reported %q before the copy of ns/a was dropped", got)
		}
		update(t, src, "b", -1)
		synctest.Wait()
		want := []string{"ns/a: -Value: 1, +Value: 99,"}
		if diff := cmp.Diff(want, log.mutations()); diff != "" {
			t.Errorf("reports when dropped mismatch (-want +got):\n%s", diff)
		}
		checkRunError(t, stop(), want)
	})
}

// A Factory returns its informers' reports from Shutdown, every time it
// is called, so that a test of a factory-based controller fails on them
// without an ErrorHandler of its own.
func TestMutationDetectorFactoryShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		f := informer.NewFactory(informer.FactoryOptions{})
		inf := informer.ForWithOptions(f, src, informer.Options[*obj]{
			MutationDetector: informer.MutationDetector[*obj]{Enabled: true, Period: time.Minute},
		})
		mustAdd(t, inf, informer.HandlerFuncs[*obj]{
			UpdateFunc: func(old, _ *obj) { old.Name = "scribbled" },
		}, informer.HandlerOptions{})
		f.Start(t.Context())
		if err := f.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		update(t, src, "a", 2)
		synctest.Wait()
		want := []string{`ns/a: -Name: "a", +Name: "scribbled",`}
		checkRunError(t, f.Shutdown(), want)
		checkRunError(t, f.Shutdown(), want)
	})
}
