package controller_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// TestManagerRepairsOwnedObjects runs a whole controller over memsource
// (a Manager running the factory and the controller, a primary Foo and
// an owned Bar mapped back to it, a reconcile that writes Bars into their
// source) and checks, after each change, that the owned object was
// repaired: the shape kube's TestControllerOverFakeClientset has over
// client-go's fake clientset.
func TestManagerRepairsOwnedObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		// reconcile keeps a Bar named after each Foo, owned by it, whose
		// Value is the length of the Foo's Spec.
		reconcile := func(ctx context.Context, key string) (queue.Result, error) {
			foo, ok := e.fooInf.Cache().GetByKey(key)
			if !ok {
				return queue.Result{}, nil
			}
			want := &Bar{Namespace: foo.Namespace, Name: foo.Name, Owner: foo.Name, Value: len(foo.Spec)}
			bar, ok := e.barInf.Cache().GetByKey(key)
			switch {
			case !ok:
				_, err := e.bars.Create(want)
				if errors.Is(err, memsource.ErrAlreadyExists) {
					return queue.Result{}, nil // not cached yet: its event queues key again
				}
				return queue.Result{}, err
			case *bar != (Bar{Namespace: want.Namespace, Name: want.Name, RV: bar.RV, Owner: want.Owner, Value: want.Value}):
				want.RV = bar.RV
				_, err := e.bars.Update(want)
				return queue.Result{}, err
			}
			return queue.Result{}, nil
		}
		c := controller.New("repair", reconcile, controller.Options[string]{Logger: discard})
		if err := errors.Join(controller.For(c, e.fooInf), controller.Watches(c, e.barInf, ownerOf)); err != nil {
			t.Fatal(err)
		}
		m := controller.NewManager(e.factory, controller.ManagerOptions{})
		if err := m.Add(c); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := runManager(ctx, m)
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run() = %v, want nil", err)
			}
		}()
		check := func(step string, value int) {
			t.Helper()
			settle(t, c)
			got, ok := e.bars.Get("ns/a")
			if !ok {
				t.Fatalf("%s: Bar ns/a missing", step)
			}
			want := Bar{Namespace: "ns", Name: "a", Owner: "a", Value: value}
			got.RV = ""
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("%s: Bar mismatch (-want +got):\n%s", step, diff)
			}
		}
		check("initial list", 0)

		bar, _ := e.bars.Get("ns/a")
		bar.Value = 42
		e.updateBar(bar)
		check("owned object changed", 0)

		if _, err := e.bars.Delete("ns/a"); err != nil {
			t.Fatal(err)
		}
		check("owned object deleted", 0)

		foo, _ := e.foos.Get(keys.Join("ns", "a"))
		foo.Spec = "four"
		e.updateFoo(foo)
		check("owner changed", 4)
	})
}
