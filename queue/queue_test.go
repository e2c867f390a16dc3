package queue_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// A step is one operation of a semantics test, with its expected outcome.
type step struct {
	name string
	run  func(t *testing.T, q *queue.TypedDelayingQueue[string])
}

func add(item string) step {
	return step{"Add(" + item + ")", func(t *testing.T, q *queue.TypedDelayingQueue[string]) { q.Add(item) }}
}

func done(item string) step {
	return step{"Done(" + item + ")", func(t *testing.T, q *queue.TypedDelayingQueue[string]) { q.Done(item) }}
}

func after(item string, d time.Duration) step {
	return step{"AddAfter(" + item + ", " + d.String() + ")", func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		q.AddAfter(item, d)
	}}
}

func cancelAfter(item string, want bool) step {
	return step{"CancelAfter(" + item + ")", func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		if got := q.CancelAfter(item); got != want {
			t.Errorf("CancelAfter(%q) = %v, want %v", item, got, want)
		}
	}}
}

func sleep(d time.Duration) step {
	return step{"sleep " + d.String(), func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		time.Sleep(d)
		synctest.Wait()
	}}
}

func shutDown() step {
	return step{"ShutDown", func(t *testing.T, q *queue.TypedDelayingQueue[string]) { q.ShutDown() }}
}

func wantLen(n int) step {
	return step{"Len", func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		if got := q.Len(); got != n {
			t.Errorf("Len() = %d, want %d", got, n)
		}
	}}
}

// get expects Get to hand out item without blocking.
func get(item string) step {
	return step{"Get", func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		got, err := getWithin(q, time.Nanosecond)
		if err != nil || got != item {
			t.Errorf("Get() = %q, %v, want %q, nil", got, err, item)
		}
	}}
}

// getErr expects Get to fail with want: context.DeadlineExceeded means that
// Get would block.
func getErr(want error) step {
	return step{"Get", func(t *testing.T, q *queue.TypedDelayingQueue[string]) {
		got, err := getWithin(q, time.Nanosecond)
		if !errors.Is(err, want) {
			t.Errorf("Get() = %q, %v, want error %v", got, err, want)
		}
	}}
}

func getWithin(q *queue.TypedDelayingQueue[string], d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return q.Get(ctx)
}

func TestSemantics(t *testing.T) {
	blocks := context.DeadlineExceeded
	tests := []struct {
		name  string
		steps []step
		want  queue.State // after the steps
	}{
		{
			name:  "FIFO",
			steps: []step{add("a"), add("b"), add("c"), wantLen(3), get("a"), get("b"), get("c"), wantLen(0)},
			want:  queue.State{Processing: 3, Slots: 3},
		},
		{
			name:  "duplicates collapse while queued",
			steps: []step{add("a"), add("b"), add("a"), wantLen(2), get("a"), get("b"), getErr(blocks)},
			want:  queue.State{Processing: 2, Slots: 2},
		},
		{
			name:  "an item processing is not handed out again",
			steps: []step{add("a"), get("a"), add("a"), add("a"), wantLen(0), getErr(blocks)},
			want:  queue.State{Dirty: 1, Processing: 1, Slots: 1},
		},
		{
			name:  "a dirty item is queued at the back on Done",
			steps: []step{add("a"), add("b"), get("a"), add("a"), done("a"), wantLen(2), get("b"), get("a")},
			want:  queue.State{Processing: 2, Slots: 2},
		},
		{
			name:  "Done forgets an item with nothing pending",
			steps: []step{add("a"), get("a"), done("a"), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "Done of an item not handed out does nothing",
			steps: []step{done("x"), add("a"), done("a"), wantLen(1), get("a"), done("a"), done("a")},
			want:  queue.State{},
		},
		{
			name:  "Add after ShutDown is ignored, queued items still come out",
			steps: []step{add("a"), shutDown(), add("b"), wantLen(1), get("a"), getErr(queue.ErrShutDown)},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "a dirty item still runs after ShutDown",
			steps: []step{add("a"), get("a"), add("a"), shutDown(), done("a"), get("a"), done("a"), getErr(queue.ErrShutDown)},
			want:  queue.State{},
		},
		{
			name:  "ShutDown twice",
			steps: []step{shutDown(), shutDown(), getErr(queue.ErrShutDown)},
			want:  queue.State{},
		},
		{
			name:  "AddAfter queues the item when the delay ends",
			steps: []step{after("a", time.Second), wantLen(0), sleep(999 * time.Millisecond), wantLen(0), sleep(time.Millisecond), get("a")},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "the earliest ready time wins",
			steps: []step{after("a", 2*time.Second), after("a", time.Second), after("a", 3*time.Second), sleep(time.Second), get("a"), done("a"), sleep(5 * time.Second), wantLen(0)},
			want:  queue.State{},
		},
		{
			name:  "Add supersedes a pending delayed add",
			steps: []step{after("a", time.Second), add("a"), get("a"), done("a"), sleep(2 * time.Second), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "AddAfter zero supersedes a pending delayed add",
			steps: []step{after("a", time.Second), after("a", 0), get("a"), done("a"), sleep(2 * time.Second), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "AddAfter with a negative delay adds now",
			steps: []step{after("a", -time.Second), get("a")},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "AddAfter of a queued item does nothing",
			steps: []step{add("a"), after("a", time.Second), get("a"), done("a"), sleep(2 * time.Second), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "AddAfter of a processing item queues it later",
			steps: []step{add("a"), get("a"), after("a", time.Second), done("a"), wantLen(0), sleep(time.Second), get("a")},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "a delay ending while processing makes the item dirty",
			steps: []step{add("a"), get("a"), after("a", time.Second), sleep(time.Second), wantLen(0), done("a"), get("a")},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "AddAfter of a dirty item does nothing",
			steps: []step{add("a"), get("a"), add("a"), after("a", time.Second), done("a"), get("a"), done("a"), sleep(2 * time.Second), wantLen(0)},
			want:  queue.State{},
		},
		{
			name:  "CancelAfter withdraws a pending delayed add",
			steps: []step{after("a", time.Second), cancelAfter("a", true), cancelAfter("a", false), sleep(2 * time.Second), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "CancelAfter leaves a processing item alone",
			steps: []step{add("a"), get("a"), after("a", time.Second), cancelAfter("a", true), sleep(2 * time.Second), done("a"), getErr(blocks)},
			want:  queue.State{},
		},
		{
			name:  "CancelAfter does not touch a queued item",
			steps: []step{add("a"), cancelAfter("a", false), get("a")},
			want:  queue.State{Processing: 1, Slots: 1},
		},
		{
			name:  "equal ready times keep AddAfter order",
			steps: []step{after("b", time.Second), after("c", 2*time.Second), after("a", time.Second), after("c", time.Second), sleep(time.Second), get("b"), get("a"), get("c")},
			want:  queue.State{Processing: 3, Slots: 3},
		},
		{
			name:  "earlier delays come out first",
			steps: []step{after("a", 3*time.Second), after("b", 2*time.Second), after("c", time.Second), sleep(3 * time.Second), get("c"), get("b"), get("a")},
			want:  queue.State{Processing: 3, Slots: 3},
		},
		{
			name:  "ShutDown drops pending delayed adds",
			steps: []step{after("a", time.Second), shutDown(), sleep(2 * time.Second), getErr(queue.ErrShutDown), cancelAfter("a", false)},
			want:  queue.State{},
		},
		{
			name:  "AddAfter after ShutDown is ignored",
			steps: []step{shutDown(), after("a", time.Second), after("b", 0), sleep(2 * time.Second), getErr(queue.ErrShutDown)},
			want:  queue.State{},
		},
		{
			name:  "a delay too long to represent is never due",
			steps: []step{after("a", math.MaxInt64), after("b", time.Hour), sleep(1000 * time.Hour), get("b"), wantLen(0), cancelAfter("a", true)},
			want:  queue.State{Processing: 1, Slots: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := queue.NewTypedDelayingQueue[string](queue.Options{})
				defer q.ShutDown()
				for i, s := range tt.steps {
					s.run(t, q)
					if t.Failed() {
						t.Fatalf("step %d (%s) failed", i, s.name)
					}
				}
				if diff := cmp.Diff(tt.want, q.State()); diff != "" {
					t.Errorf("State() mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestGetCancelledContextChangesNothing(t *testing.T) {
	q := queue.New[string](queue.Options{})
	q.Add("a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if item, err := q.Get(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get(cancelled) = %q, %v, want context.Canceled", item, err)
	}
	if diff := cmp.Diff(queue.State{Ready: 1, Slots: 1}, q.State()); diff != "" {
		t.Errorf("State() mismatch (-want +got):\n%s", diff)
	}
}

func TestGetBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[int](queue.Options{})
		got := make(chan int)
		go func() {
			item, err := q.Get(context.Background())
			if err != nil {
				t.Errorf("Get() error = %v", err)
			}
			got <- item
		}()
		synctest.Wait()
		q.Add(7)
		if item := <-got; item != 7 {
			t.Errorf("Get() = %d, want 7", item)
		}
	})
}

func TestGetWakesOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[int](queue.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() {
			_, err := q.Get(ctx)
			errc <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Get() error = %v, want context.Canceled", err)
		}
		q.Add(1)
		if diff := cmp.Diff(queue.State{Ready: 1, Slots: 1}, q.State()); diff != "" {
			t.Errorf("State() mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestShutDownWakesGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[int](queue.Options{})
		errc := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := q.Get(context.Background())
				errc <- err
			}()
		}
		synctest.Wait()
		q.ShutDown()
		for range 2 {
			if err := <-errc; !errors.Is(err, queue.ErrShutDown) {
				t.Errorf("Get() error = %v, want ErrShutDown", err)
			}
		}
		if !q.ShuttingDown() {
			t.Error("ShuttingDown() = false after ShutDown")
		}
	})
}

// A worker waiting in Get during shutdown must still receive an item that
// another worker re-adds-while-processing releases with Done.
func TestGetAfterShutDownWaitsForDirtyItem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[string](queue.Options{})
		q.Add("a")
		held, _ := q.Get(context.Background())
		q.Add("a") // dirty
		q.ShutDown()
		got := make(chan string)
		go func() {
			item, err := q.Get(context.Background())
			if err != nil {
				t.Errorf("Get() error = %v", err)
			}
			got <- item
		}()
		synctest.Wait()
		q.Done(held)
		if item := <-got; item != "a" {
			t.Errorf("Get() = %q, want a", item)
		}
		q.Done("a")
		if _, err := q.Get(context.Background()); !errors.Is(err, queue.ErrShutDown) {
			t.Errorf("Get() error = %v, want ErrShutDown", err)
		}
	})
}

func TestShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[string](queue.Options{})
		q.Add("a")
		q.Add("b")
		held, _ := q.Get(context.Background()) // a
		q.Add(held)                            // a is dirty: it must run again

		drained := make(chan error)
		go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
		synctest.Wait()
		q.Add("c") // ignored: shutting down

		var got []string
		q.Done(held)
		for {
			select {
			case err := <-drained:
				t.Fatalf("ShutDownWithDrain() = %v before the queue drained; processed %v", err, got)
			default:
			}
			item, err := q.Get(context.Background())
			if errors.Is(err, queue.ErrShutDown) {
				break
			}
			got = append(got, item)
			synctest.Wait()
			q.Done(item)
		}
		if err := <-drained; err != nil {
			t.Errorf("ShutDownWithDrain() = %v, want nil", err)
		}
		if diff := cmp.Diff([]string{"b", "a"}, got); diff != "" {
			t.Errorf("items processed during drain mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestShutDownWithDrainContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.New[string](queue.Options{})
		q.Add("a")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		if err := q.ShutDownWithDrain(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ShutDownWithDrain() = %v, want DeadlineExceeded", err)
		}
		if waited := time.Since(start); waited != time.Minute {
			t.Errorf("ShutDownWithDrain waited %v, want 1m", waited)
		}
		if !q.ShuttingDown() || q.Len() != 1 {
			t.Errorf("after a timed-out drain: ShuttingDown() = %v, Len() = %d, want true, 1", q.ShuttingDown(), q.Len())
		}
		// An empty queue drains at once.
		if err := queue.New[int](queue.Options{}).ShutDownWithDrain(context.Background()); err != nil {
			t.Errorf("ShutDownWithDrain(empty) = %v, want nil", err)
		}
	})
}

func TestRateLimitingQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limiter := queue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
		q := queue.NewTypedRateLimitingQueue(limiter, queue.Options{})
		defer q.ShutDown()
		start := time.Now()
		var readyAfter []time.Duration
		for range 3 {
			q.AddRateLimited("a")
			item, err := q.Get(context.Background())
			if err != nil {
				t.Fatalf("Get() error = %v", err)
			}
			readyAfter = append(readyAfter, time.Since(start))
			q.Done(item)
		}
		if diff := cmp.Diff([]time.Duration{time.Second, 3 * time.Second, 7 * time.Second}, readyAfter); diff != "" {
			t.Errorf("AddRateLimited ready times mismatch (-want +got):\n%s", diff)
		}
		if n := q.NumRequeues("a"); n != 3 {
			t.Errorf("NumRequeues(a) = %d, want 3", n)
		}
		q.Forget("a")
		if n := q.NumRequeues("a"); n != 0 {
			t.Errorf("NumRequeues(a) after Forget = %d, want 0", n)
		}
	})
}

func TestRateLimitingQueueNilLimiter(t *testing.T) {
	q := queue.NewTypedRateLimitingQueue[string](nil, queue.Options{})
	defer q.ShutDown()
	q.AddRateLimited("a") // default limiter: 5ms
	if n := q.NumRequeues("a"); n != 1 {
		t.Errorf("NumRequeues(a) = %d, want 1", n)
	}
}

// TestLargeQueueReusesItems moves items through a queue large enough to
// defer the removal of its index entries, adding each item again right
// after its Done, while its old entry is still pending removal.
func TestLargeQueueReusesItems(t *testing.T) {
	const n = 20_000
	q := queue.New[int](queue.Options{})
	defer q.ShutDown()
	for i := range n {
		q.Add(i)
	}
	ctx := context.Background()
	for i := range 2 * n {
		item, err := q.Get(ctx)
		if err != nil {
			t.Fatalf("Get() error = %v, want nil", err)
		}
		if item != i%n {
			t.Fatalf("Get() = %d, want %d", item, i%n)
		}
		q.Done(item)
		if i < n {
			q.Add(item)
			q.Add(item) // already queued: no change
		}
		want := n // each item comes back once
		if i >= n {
			want = 2*n - 1 - i
		}
		if q.Len() != want {
			t.Fatalf("after %d items Len() = %d, want %d", i+1, q.Len(), want)
		}
	}
	if diff := cmp.Diff(queue.State{}, q.State()); diff != "" {
		t.Errorf("State() mismatch (-want +got):\n%s", diff)
	}
}
