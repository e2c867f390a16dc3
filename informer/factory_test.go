package informer_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// other and late are more object types for the factory tests.
type (
	other struct{ obj }
	late  struct{ obj }
)

func (o *other) DeepCopy() *other { return &other{*o.obj.DeepCopy()} }
func (o *late) DeepCopy() *late   { return &late{*o.obj.DeepCopy()} }

func TestFactorySharesOneInformerPerType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		objs := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		others := memsource.New(memsource.Options[*other]{})
		f := informer.NewFactory(informer.FactoryOptions{})
		defer f.Shutdown()

		first := informer.For(f, objs)
		if second := informer.For(f, objs); second != first {
			t.Error("For() returned a different informer for the same type")
		}
		otherInf := informer.For(f, others)
		if otherInf.Name() == first.Name() {
			t.Errorf("informers of two types share the name %q", first.Name())
		}
		reg := mustAdd(t, first, newRecorder(), informer.HandlerOptions{})
		f.Start(t.Context())
		if err := f.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		if !f.HasSynced() || !first.HasSynced() || !otherInf.HasSynced() {
			t.Error("factory or informer not synced after WaitForSync")
		}
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Errorf("registration WaitForSync() = %v", err)
		}

		// An informer asked for after Start runs from the next Start.
		lateInf := informer.For(f, memsource.New(memsource.Options[*late]{}))
		synctest.Wait()
		if lateInf.HasSynced() {
			t.Error("informer created after Start runs before the next Start")
		}
		f.Start(t.Context())
		if err := informer.WaitForCacheSync(t.Context(), f); err != nil {
			t.Errorf("WaitForCacheSync(factory) = %v", err)
		}
		if !lateInf.HasSynced() {
			t.Error("late informer not synced after the second Start")
		}
	})
}

// Shutdown stops every informer and waits for their goroutines (goleak
// checks the last part); it is idempotent, and Start after it does
// nothing.
func TestFactoryShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := informer.NewFactory(informer.FactoryOptions{})
		inf := informer.For(f, newSource(t, memsource.Options[*obj]{}, newObj("a", 1)))
		reg := mustAdd(t, inf, newRecorder(), informer.HandlerOptions{})
		f.Start(t.Context())
		synctest.Wait()
		if err := f.Shutdown(); err != nil {
			t.Errorf("Shutdown() = %v, want nil", err)
		}
		select {
		case <-reg.Done():
		default:
			t.Error("handler still running after Shutdown")
		}
		if _, err := inf.AddEventHandler(newRecorder()); err == nil {
			t.Error("AddEventHandler() after Shutdown succeeded")
		}
		f.Shutdown()
		late := informer.For(f, memsource.New(memsource.Options[*other]{}))
		f.Start(t.Context())
		synctest.Wait()
		if late.HasSynced() {
			t.Error("Start after Shutdown started an informer")
		}
	})
}

// An informer the factory never starts because it has shut down, whether
// For created it before Shutdown or after, reports ErrFactoryShutDown at
// once instead of waiting for a sync that cannot happen.
func TestFactoryNeverStarted(t *testing.T) {
	for _, createdAfter := range []bool{false, true} {
		t.Run(fmt.Sprint("created after Shutdown: ", createdAfter), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := informer.NewFactory(informer.FactoryOptions{})
				started := informer.For(f, newSource(t, memsource.Options[*obj]{}, newObj("a", 1)))
				f.Start(t.Context())
				if err := f.WaitForSync(t.Context()); err != nil {
					t.Fatalf("WaitForSync() = %v", err)
				}
				var inf *informer.Informer[*other]
				src := memsource.New(memsource.Options[*other]{})
				if !createdAfter {
					inf = informer.For(f, src)
				}
				f.Shutdown()
				if createdAfter {
					inf = informer.For(f, src)
				}

				if err := inf.WaitForSync(t.Context()); !errors.Is(err, informer.ErrFactoryShutDown) || !errors.Is(err, informer.ErrStopped) {
					t.Errorf("WaitForSync() = %v, want ErrFactoryShutDown (an ErrStopped)", err)
				}
				err := informer.WaitForCacheSync(t.Context(), started, inf)
				if !errors.Is(err, informer.ErrFactoryShutDown) || !strings.Contains(err.Error(), "factory shut down") || !strings.Contains(err.Error(), inf.Name()) {
					t.Errorf("WaitForCacheSync() = %v, want it to name %s and say the factory shut down", err, inf.Name())
				}
				if err := f.WaitForSync(t.Context()); !errors.Is(err, informer.ErrFactoryShutDown) {
					t.Errorf("factory WaitForSync() = %v, want ErrFactoryShutDown", err)
				}
				if _, err := inf.AddEventHandler(informer.HandlerFuncs[*other]{}); !errors.Is(err, informer.ErrFactoryShutDown) {
					t.Errorf("AddEventHandler() = %v, want ErrFactoryShutDown", err)
				}
				if err := inf.Run(t.Context()); !errors.Is(err, informer.ErrFactoryShutDown) {
					t.Errorf("Run() = %v, want ErrFactoryShutDown", err)
				}
			})
		})
	}
}

// A zero Factory works like NewFactory(FactoryOptions{}).
func TestFactoryZeroValue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f informer.Factory
		defer f.Shutdown()
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		inf := informer.For(&f, src)
		if again := informer.For(&f, src); again != inf {
			t.Error("For() on a zero Factory returned a second informer for the same source")
		}
		f.Start(t.Context())
		if err := f.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		if got := inf.Cache().Len(); got != 1 {
			t.Errorf("Cache().Len() = %d, want 1", got)
		}
	})
}

// identified is a source with an Identity.
type identified struct {
	*memsource.Source[*obj]
	id string
}

func (s identified) Identity() string { return s.id }

// uncomparable is a source whose values cannot be compared with ==.
type uncomparable struct {
	*memsource.Source[*obj]
	tags []string
}

// TestFactoryKeysBySource checks which For calls share an informer: those
// whose sources have the same type and Identity, or, without an Identity,
// are the same source value. Every informer holds its own source's
// objects.
func TestFactoryKeysBySource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newSource(t, memsource.Options[*obj]{}, newObj("a", 1))
		b := newSource(t, memsource.Options[*obj]{}, newObj("b", 2))
		f := informer.NewFactory(informer.FactoryOptions{})
		defer f.Shutdown()
		for _, tc := range []struct {
			name  string
			first reflector.ListerWatcher[*obj]
			then  reflector.ListerWatcher[*obj]
			same  bool
		}{
			{"the same source value", a, a, true},
			{"two sources of one type without identity", a, b, false},
			{"equal identities on different values", identified{a, "A"}, identified{a, "A"}, true},
			{"equal identities over different sources are taken at their word", identified{a, "A2"}, identified{b, "A2"}, true},
			{"different identities", identified{a, "A3"}, identified{a, "B3"}, false},
			{"an identity and none", identified{a, "A4"}, a, false},
			{"an empty identity falls back to the value", identified{b, ""}, identified{b, ""}, true},
			{"values that cannot be compared are never shared", uncomparable{a, nil}, uncomparable{a, nil}, false},
		} {
			first, then := informer.For(f, tc.first), informer.For(f, tc.then)
			if (first == then) != tc.same {
				t.Errorf("%s: same informer = %v, want %v", tc.name, first == then, tc.same)
			}
		}
		// Every informer created above holds its own source's objects.
		own := informer.For(f, b)
		if own == informer.For(f, a) {
			t.Fatal("sources a and b share an informer")
		}
		f.Start(t.Context())
		if err := f.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync() = %v", err)
		}
		if got := own.Cache().ListKeys(); !slices.Equal(got, []string{"ns/b"}) {
			t.Errorf("informer of source b holds %v, want [ns/b]", got)
		}
		if got := informer.For(f, a).Cache().ListKeys(); !slices.Equal(got, []string{"ns/a"}) {
			t.Errorf("informer of source a holds %v, want [ns/a]", got)
		}
	})
}
