package informer_test

import (
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// other is a second object type for the factory tests.
type other struct{ obj }

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
		if err := f.WaitForCacheSync(t.Context()); err != nil {
			t.Fatalf("WaitForCacheSync() = %v", err)
		}
		if !f.HasSynced() || !first.HasSynced() || !otherInf.HasSynced() {
			t.Error("factory or informer not synced after WaitForCacheSync")
		}
		if err := reg.WaitForSync(t.Context()); err != nil {
			t.Errorf("registration WaitForSync() = %v", err)
		}

		// An informer asked for after Start runs from the next Start.
		type late struct{ obj }
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
		f.Shutdown()
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
