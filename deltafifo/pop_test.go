package deltafifo_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/deltafifo"
)

// popAsync runs Pop in a goroutine; the processor records what it got and
// returns the result of hold, which may block.
type popAsync struct {
	got  popped
	err  error
	done chan struct{}
}

func startPop(ctx context.Context, f *deltafifo.DeltaFIFO[thing], hold func(popped) error) *popAsync {
	p := &popAsync{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = f.Pop(ctx, func(key string, d deltafifo.Deltas[thing], initial bool) error {
			p.got = popped{key, slices.Clone(d), initial}
			if hold == nil {
				return nil
			}
			return hold(p.got)
		})
	}()
	return p
}

// returned reports whether the Pop has returned. Call it after
// synctest.Wait.
func (p *popAsync) returned() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func TestPopBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		p := startPop(t.Context(), f, nil)
		synctest.Wait()
		if p.returned() {
			t.Fatalf("Pop returned %v on an empty FIFO", p.err)
		}
		if err := f.Add(th("a", 1)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !p.returned() || p.err != nil {
			t.Fatalf("Pop after Add: returned %v, err %v; want returned, nil", p.returned(), p.err)
		}
		diffPopped(t, "Pop()", []popped{{"a", ds(added("a", 1)), false}}, []popped{p.got})
	})
}

func TestPopCancellation(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			ctx, cancel := context.WithCancel(t.Context())
			p := startPop(ctx, f, nil)
			synctest.Wait()
			if p.returned() {
				t.Fatalf("Pop returned %v before cancellation", p.err)
			}
			cancel()
			synctest.Wait()
			if !p.returned() || !errors.Is(p.err, context.Canceled) {
				t.Fatalf("Pop after cancel: returned %v, err %v; want %v", p.returned(), p.err, context.Canceled)
			}
		})
	})
	t.Run("deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			start := time.Now()
			err := f.Pop(ctx, func(string, deltafifo.Deltas[thing], bool) error { return nil })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Pop() = %v, want %v", err, context.DeadlineExceeded)
			}
			if waited := time.Since(start); waited != time.Minute {
				t.Errorf("Pop waited %v, want 1m", waited)
			}
		})
	})
	t.Run("already cancelled takes nothing", func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		if err := f.Add(th("a", 1)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := f.Pop(ctx, func(string, deltafifo.Deltas[thing], bool) error {
			t.Error("processor called with a cancelled context")
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Pop(cancelled) = %v, want %v", err, context.Canceled)
		}
		err = f.PopBatch(ctx, 10, func([]deltafifo.Item[thing]) error {
			t.Error("batch processor called with a cancelled context")
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("PopBatch(cancelled) = %v, want %v", err, context.Canceled)
		}
		diffPopped(t, "popAll() after cancelled pops", []popped{{"a", ds(added("a", 1)), false}}, popAll(t, f))
	})
}

func TestCloseWakesPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		p1 := startPop(t.Context(), f, nil)
		p2 := startPop(t.Context(), f, nil)
		synctest.Wait()
		f.Close()
		synctest.Wait()
		for i, p := range []*popAsync{p1, p2} {
			if !p.returned() || !errors.Is(p.err, deltafifo.ErrClosed) {
				t.Errorf("Pop %d after Close: returned %v, err %v; want %v", i, p.returned(), p.err, deltafifo.ErrClosed)
			}
		}
	})
}

// While a key is processed, its new deltas wait apart: no other Pop gets
// the key, and they are popped after the processor returns.
func TestNeverTwoProcessorsOnOneKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		if err := f.Add(th("a", 1)); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		first := startPop(t.Context(), f, func(popped) error { <-release; return nil })
		synctest.Wait()
		if err := f.Update(th("a", 2)); err != nil {
			t.Fatal(err)
		}
		if n := f.Len(); n != 1 {
			t.Errorf("Len() = %d with new deltas for the key in flight, want 1", n)
		}
		second := startPop(t.Context(), f, nil)
		synctest.Wait()
		if second.returned() {
			t.Fatalf("second Pop returned %+v while the key was in flight", second.got)
		}
		close(release)
		synctest.Wait()
		if !first.returned() || !second.returned() {
			t.Fatalf("after release: first returned %v, second returned %v", first.returned(), second.returned())
		}
		want := []popped{{"a", ds(added("a", 1)), false}, {"a", ds(updated("a", 2)), false}}
		diffPopped(t, "Pops", want, []popped{first.got, second.got})
		mustCheck(t, f)
	})
}

func TestRequeue(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		during []op // run while the key is being processed
		want   []popped
	}{
		{
			name: "nothing new",
			want: []popped{{"b", ds(added("b", 1)), false}, {"a", ds(added("a", 1)), false}},
		},
		{
			name:   "old deltas in front of new ones",
			during: []op{opUpdate("a", 2), opDelete("a", 3)},
			want:   []popped{{"b", ds(added("b", 1)), false}, {"a", ds(added("a", 1), updated("a", 2), deleted("a", 3)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
			for _, o := range []op{opAdd("a", 1), opAdd("b", 1)} {
				o(t, f)
			}
			cause := errors.New("cache busy")
			err := f.Pop(t.Context(), func(string, deltafifo.Deltas[thing], bool) error {
				for _, o := range tt.during {
					o(t, f)
				}
				return fmt.Errorf("%w: %w", deltafifo.ErrRequeue, cause)
			})
			if !errors.Is(err, cause) || !errors.Is(err, deltafifo.ErrRequeue) {
				t.Errorf("Pop() = %v, want the processor's error", err)
			}
			mustCheck(t, f)
			diffPopped(t, "popAll() after requeue", tt.want, popAll(t, f))
		})
	}
}

func TestProcessorErrorDropsDeltas(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	if err := f.Add(th("a", 1)); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("bad object")
	if err := f.Pop(t.Context(), func(string, deltafifo.Deltas[thing], bool) error { return cause }); err != cause {
		t.Errorf("Pop() = %v, want %v", err, cause)
	}
	if n := f.Len(); n != 0 {
		t.Errorf("Len() = %d after a failed processor without requeue, want 0", n)
	}
	mustCheck(t, f)
}

func TestProcessorPanicRequeues(t *testing.T) {
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	if err := f.Add(th("a", 1)); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want boom", r)
			}
		}()
		_ = f.Pop(t.Context(), func(string, deltafifo.Deltas[thing], bool) error { panic("boom") })
	}()
	mustCheck(t, f)
	diffPopped(t, "popAll() after a panic", []popped{{"a", ds(added("a", 1)), false}}, popAll(t, f))
}

// Deltas that arrive for a key being processed follow the rules as if they
// had been queued after the processed ones.
func TestDeltasDuringProcessing(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		known   []thing
		before  []op // queue the key to process
		during  []op
		requeue bool
		want    []popped // popped after the processor returned
	}{
		{
			name:   "delete is not dropped",
			reason: "the key is in flight, not yet in the cache",
			before: []op{opAdd("a", 1)},
			during: []op{opDelete("a", 2)},
			want:   []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name:   "replace infers the deletion from the processed deltas",
			before: []op{opAdd("a", 1)},
			during: []op{opReplace()},
			want:   []popped{{"a", ds(inferred("a", 1)), false}},
		},
		{
			name:   "replace infers nothing twice for a processed deletion",
			reason: "the processor deleted the key; a second deletion would be spurious",
			known:  []thing{th("a", 1)},
			before: []op{opDelete("a", 2)},
			during: []op{opReplace()},
		},
		{
			name:   "observed delete after a processed deletion is dropped",
			known:  []thing{th("a", 1)},
			before: []op{opDelete("a", 2)},
			during: []op{opDelete("a", 3), opAdd("a", 4)},
			want:   []popped{{"a", ds(added("a", 4)), false}},
		},
		{
			name:    "requeue collapses the deletions across the boundary",
			reason:  "an observed deletion replaces the inferred one being processed",
			known:   []thing{th("a", 1)},
			before:  []op{opReplace()},
			during:  []op{opDelete("a", 3)},
			requeue: true,
			want:    []popped{{"a", ds(deleted("a", 3)), true}},
		},
		{
			name:    "requeue keeps the processed observed deletion",
			known:   []thing{th("a", 1)},
			before:  []op{opDelete("a", 2)},
			during:  []op{opReplace()},
			requeue: true,
			want:    []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name:   "replace listing the key",
			before: []op{opAdd("a", 1)},
			during: []op{opReplace(th("a", 2))},
			want:   []popped{{"a", ds(replaced("a", 2)), false}},
		},
		{
			name:   "two replaces: the second infers from the first's pending deletion",
			before: []op{opAdd("a", 1)},
			during: []op{opUpdate("a", 2), opReplace(), opReplace()},
			want:   []popped{{"a", ds(updated("a", 2), inferred("a", 2)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnown(tt.known...)
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
			for _, o := range tt.before {
				o(t, f)
			}
			err := f.Pop(t.Context(), func(_ string, d deltafifo.Deltas[thing], _ bool) error {
				for _, o := range tt.during {
					o(t, f)
					mustCheck(t, f)
				}
				if tt.requeue {
					return deltafifo.ErrRequeue
				}
				k.apply(d)
				return nil
			})
			if tt.requeue != (err != nil) {
				t.Fatalf("Pop() = %v", err)
			}
			mustCheck(t, f)
			diffPopped(t, "popAll()", tt.want, popAll(t, f))
		})
	}
}

// Many producers and consumers at once: every delta is delivered exactly
// once, in order per key, and never to two processors at once.
func TestConcurrentProducersAndConsumers(t *testing.T) {
	const producers, consumers, perProducer = 4, 3, 500
	f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
	var (
		mu       sync.Mutex
		busy     = make(map[string]bool)
		lastSeen = make(map[string]int)
		count    int
	)
	var cwg sync.WaitGroup
	for range consumers {
		cwg.Go(func() {
			for {
				err := f.Pop(t.Context(), func(key string, d deltafifo.Deltas[thing], _ bool) error {
					mu.Lock()
					if busy[key] {
						t.Errorf("key %s handed to two processors", key)
					}
					busy[key] = true
					for _, d := range d {
						if d.Object.Version <= lastSeen[key] {
							t.Errorf("key %s: version %d after %d", key, d.Object.Version, lastSeen[key])
						}
						lastSeen[key] = d.Object.Version
					}
					mu.Unlock()
					runtime.Gosched() // let another consumer try to take the key
					mu.Lock()
					busy[key] = false
					count += len(d)
					mu.Unlock()
					return nil
				})
				if errors.Is(err, deltafifo.ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for v := 1; v <= perProducer; v++ {
				if err := f.Update(thing{Name: fmt.Sprintf("k%d-%d", p, v%7), Version: v}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	pwg.Wait()
	f.Close()
	cwg.Wait()
	if count != producers*perProducer {
		t.Errorf("processed %d deltas, want %d", count, producers*perProducer)
	}
	mustCheck(t, f)
}
