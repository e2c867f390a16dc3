package deltafifo_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/typedcache/typedcache/deltafifo"
)

// TestPopWaitAllocs pins that a Pop that has to wait allocates nothing:
// the wakeup on cancellation is registered once per context, not per wait,
// and not at all for a context that is never done.
func TestPopWaitAllocs(t *testing.T) {
	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
	}{
		{"cancelable context", func(t *testing.T) context.Context { return t.Context() }},
		{"context never done", func(*testing.T) context.Context { return context.Background() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
				ctx := tt.ctx(t)
				obj := th("a", 1)
				// The producer adds obj once the Pop below waits.
				add := make(chan struct{})
				added := make(chan error)
				go func() {
					for range add {
						synctest.Wait()
						added <- f.Add(obj)
					}
				}()
				defer close(add)
				process := func(string, deltafifo.Deltas[thing], bool) error { return nil }
				allocs := testing.AllocsPerRun(100, func() {
					add <- struct{}{}
					if err := f.Pop(ctx, process); err != nil {
						t.Errorf("Pop() = %v", err)
					}
					if err := <-added; err != nil {
						t.Errorf("Add() = %v", err)
					}
				})
				if allocs != 0 {
					t.Errorf("a Pop that waits allocates %v times, want 0", allocs)
				}
			})
		})
	}
}

// TestWaitContexts checks that poppers waiting with different contexts each
// wake when their own context is done, whichever context the FIFO keeps a
// registration for, and that the kept registration is released when its
// context is done or the FIFO closes.
func TestWaitContexts(t *testing.T) {
	t.Run("each context wakes its popper", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			ctxA, cancelA := context.WithCancel(t.Context())
			ctxB, cancelB := context.WithCancel(t.Context())
			a := startPop(ctxA, f, nil) // registers ctxA and keeps it
			synctest.Wait()
			b := startPop(ctxB, f, nil) // ctxA is in use: a registration of its own
			synctest.Wait()
			cancelB()
			synctest.Wait()
			if !b.returned() || b.err != context.Canceled {
				t.Fatalf("Pop(ctxB) after cancelB: returned %v, err %v; want returned, %v", b.returned(), b.err, context.Canceled)
			}
			if a.returned() {
				t.Fatalf("Pop(ctxA) returned %v after cancelB", a.err)
			}
			if !f.KeepsWakeup() {
				t.Errorf("KeepsWakeup() = false with Pop(ctxA) waiting, want true")
			}
			cancelA()
			synctest.Wait()
			if !a.returned() || a.err != context.Canceled {
				t.Fatalf("Pop(ctxA) after cancelA: returned %v, err %v; want returned, %v", a.returned(), a.err, context.Canceled)
			}
			if f.KeepsWakeup() {
				t.Errorf("KeepsWakeup() = true after its context was done, want false")
			}
		})
	})
	t.Run("a new context replaces an unused registration", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			ctxA, cancelA := context.WithCancel(t.Context())
			a := startPop(ctxA, f, nil)
			synctest.Wait()
			if err := f.Add(th("a", 1)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if !a.returned() || a.err != nil {
				t.Fatalf("Pop(ctxA) after Add: returned %v, err %v; want returned, nil", a.returned(), a.err)
			}
			ctxB, cancelB := context.WithCancel(t.Context())
			b := startPop(ctxB, f, nil)
			synctest.Wait()
			cancelA() // its registration was replaced: wakes nobody
			synctest.Wait()
			if b.returned() {
				t.Fatalf("Pop(ctxB) returned %v after cancelA", b.err)
			}
			cancelB()
			synctest.Wait()
			if !b.returned() || b.err != context.Canceled {
				t.Fatalf("Pop(ctxB) after cancelB: returned %v, err %v; want returned, %v", b.returned(), b.err, context.Canceled)
			}
		})
	})
	t.Run("Close releases the registration", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			p := startPop(t.Context(), f, nil)
			synctest.Wait()
			if err := f.Add(th("a", 1)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if !p.returned() || p.err != nil {
				t.Fatalf("Pop() after Add: returned %v, err %v; want returned, nil", p.returned(), p.err)
			}
			if !f.KeepsWakeup() {
				t.Fatalf("KeepsWakeup() = false after a Pop waited, want true")
			}
			f.Close()
			if f.KeepsWakeup() {
				t.Errorf("KeepsWakeup() = true after Close, want false")
			}
		})
	})
}
