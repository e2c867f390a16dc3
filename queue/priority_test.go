package queue_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// handout is an item handed out by GetWithPriority, with its priority.
type handout struct {
	Item     string
	Priority queue.Priority
}

// pqOp is one operation on a priority queue in TestPrioritySemantics.
type pqOp func(t *testing.T, q *queue.TypedPriorityQueue[string])

func padd(item string, p queue.Priority) pqOp {
	return func(_ *testing.T, q *queue.TypedPriorityQueue[string]) {
		q.AddWithOptions(item, queue.AddOptions{Priority: p})
	}
}

func pafter(item string, p queue.Priority, d time.Duration) pqOp {
	return func(_ *testing.T, q *queue.TypedPriorityQueue[string]) {
		q.AddWithOptions(item, queue.AddOptions{Priority: p, After: d})
	}
}

func pwait(d time.Duration) pqOp {
	return func(*testing.T, *queue.TypedPriorityQueue[string]) { time.Sleep(d); synctest.Wait() }
}

// pget takes one item, which must be ready, and checks it.
func pget(item string, p queue.Priority) pqOp {
	return func(t *testing.T, q *queue.TypedPriorityQueue[string]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
		defer cancel()
		got, gotP, err := q.GetWithPriority(ctx)
		if err != nil || got != item || gotP != p {
			t.Errorf("GetWithPriority() = %q, %d, %v, want %q, %d, nil", got, gotP, err, item, p)
		}
	}
}

func pdone(item string) pqOp {
	return func(_ *testing.T, q *queue.TypedPriorityQueue[string]) { q.Done(item) }
}

// drain takes every ready item, marking each Done, and returns them in
// the order they were handed out.
func drain(t *testing.T, q *queue.TypedPriorityQueue[string]) []handout {
	t.Helper()
	var out []handout
	for q.Len() > 0 {
		item, p, err := q.GetWithPriority(context.Background())
		if err != nil {
			t.Fatalf("GetWithPriority() with %d ready: %v", q.Len(), err)
		}
		q.Done(item)
		out = append(out, handout{item, p})
	}
	return out
}

func TestPrioritySemantics(t *testing.T) {
	const low, normal, high = queue.PriorityLow, queue.PriorityNormal, queue.Priority(10)
	tests := []struct {
		name string
		ops  []pqOp
		want []handout // drained after ops
	}{
		{
			name: "higher priority first, FIFO within a priority",
			ops:  []pqOp{padd("l1", low), padd("n1", normal), padd("l2", low), padd("h", high), padd("n2", normal)},
			want: []handout{{"h", high}, {"n1", normal}, {"n2", normal}, {"l1", low}, {"l2", low}},
		},
		{
			name: "Add is at PriorityNormal",
			ops:  []pqOp{padd("l", low), func(_ *testing.T, q *queue.TypedPriorityQueue[string]) { q.Add("n") }},
			want: []handout{{"n", normal}, {"l", low}},
		},
		{
			name: "a duplicate add raises the priority: due as the add",
			// l1 raised to normal at 2s goes behind n, normal since 1s.
			ops: []pqOp{
				padd("l1", low), pwait(time.Second), padd("n", normal), padd("l2", low), pwait(time.Second),
				padd("l1", normal),
			},
			want: []handout{{"n", normal}, {"l1", normal}, {"l2", low}},
		},
		{
			name: "a duplicate add raises the priority: a deadline earned by waiting stays",
			// l1, low since 0s, is due at 100s; n at 150s; the raise at
			// 151s would make l1 due at 151s.
			ops: []pqOp{
				padd("l1", low), pwait(150 * time.Second), padd("n", normal), padd("l2", low),
				pwait(time.Second), padd("l1", normal),
			},
			want: []handout{{"l1", normal}, {"n", normal}, {"l2", low}},
		},
		{
			name: "a duplicate add never lowers the priority",
			ops:  []pqOp{padd("a", normal), padd("b", normal), padd("a", low)},
			want: []handout{{"a", normal}, {"b", normal}},
		},
		{
			name: "aging: a low item overtakes normal items that became ready 100 Agings later",
			ops: []pqOp{
				padd("old-low", low), pwait(100*time.Second + time.Millisecond), padd("new-normal", normal),
			},
			want: []handout{{"old-low", low}, {"new-normal", normal}},
		},
		{
			name: "aging: but not those that became ready earlier",
			ops: []pqOp{
				padd("old-low", low), pwait(100*time.Second - time.Millisecond), padd("new-normal", normal),
			},
			want: []handout{{"new-normal", normal}, {"old-low", low}},
		},
		{
			name: "a delayed add ages from its ready time",
			// d became ready at 10s, so its deadline is 110s; n's is 100.5s.
			ops: []pqOp{
				pafter("d", low, 10*time.Second), pwait(100*time.Second + 500*time.Millisecond), padd("n", normal),
			},
			want: []handout{{"n", normal}, {"d", low}},
		},
		{
			name: "delayed adds collapse to the earliest time and the highest priority",
			ops: []pqOp{
				pafter("a", low, 5*time.Second), pafter("a", normal, 10*time.Second), padd("b", low),
				pwait(5 * time.Second),
			},
			want: []handout{{"a", normal}, {"b", low}},
		},
		{
			name: "an immediate add of a waiting item keeps the higher priority",
			ops:  []pqOp{pafter("a", normal, time.Hour), padd("b", normal), padd("a", low)},
			want: []handout{{"b", normal}, {"a", normal}},
		},
		{
			name: "a delayed add of a queued item raises it as an immediate add would",
			// a, low since 0s, is due at 100s; it is ready already, so the
			// add at priority 10 makes it due at 0s − 10s, not at
			// 1h − 10s: it no longer waits behind its old priority.
			ops:  []pqOp{padd("a", low), padd("b", normal), pafter("a", high, time.Hour)},
			want: []handout{{"a", high}, {"b", normal}},
		},
		{
			name: "a delayed add of a queued item goes behind its new priority's earlier items",
			// a, low since 0s, is raised at 5s to normal with a delay of
			// 50s: due at 5s, behind n (0s) and ahead of m (10s).
			ops: []pqOp{
				padd("a", low), padd("n", normal), pwait(5 * time.Second), pafter("a", normal, 50*time.Second),
				pwait(5 * time.Second), padd("m", normal),
			},
			want: []handout{{"n", normal}, {"a", normal}, {"m", normal}},
		},
		{
			name: "a delayed add of a queued item keeps a deadline earned by waiting",
			// a, low since 0s, is due at 100s; the raise at 150s would
			// make it due at 150s, after n (120s).
			ops: []pqOp{
				padd("a", low), pwait(120 * time.Second), padd("n", normal), pwait(30 * time.Second),
				pafter("a", normal, time.Minute),
			},
			want: []handout{{"a", normal}, {"n", normal}},
		},
		{
			name: "a delayed add of an item being processed sets the priority of its rerun, after the delay",
			ops: []pqOp{
				padd("a", low), pget("a", low), pafter("a", high, 10*time.Second), pdone("a"),
				padd("n", normal), pwait(10 * time.Second), padd("m", normal),
			},
			// a becomes ready at 10s, at priority 10: due at 0s, behind n,
			// due at 0s too but ranked first, and ahead of m (10s).
			want: []handout{{"n", normal}, {"a", high}, {"m", normal}},
		},
		{
			name: "a delayed add of a dirty item being processed raises its rerun, due at Done",
			ops: []pqOp{
				padd("a", normal), pget("a", normal), padd("a", low), padd("n", normal),
				pafter("a", high, time.Hour), pdone("a"),
			},
			want: []handout{{"a", high}, {"n", normal}},
		},
		{
			name: "equal deadlines at different priorities: the one ranked first goes first (low)",
			// l, low since 0s, and n, normal since 100s, are both due at
			// 100s: l became ready first.
			ops:  []pqOp{padd("l", low), pwait(100 * time.Second), padd("n", normal)},
			want: []handout{{"l", low}, {"n", normal}},
		},
		{
			name: "equal deadlines at different priorities: the one ranked first goes first (normal)",
			// n, normal since 0s, and h, at 10 since 10s, are both due at
			// 0s: n became ready first.
			ops:  []pqOp{padd("n", normal), pwait(10 * time.Second), padd("h", high)},
			want: []handout{{"n", normal}, {"h", high}},
		},
		{
			name: "equal deadlines: a raise to the same deadline keeps the item's place",
			// l1 and l2, low since 0s, are due at 100s, and so is n, normal
			// since 100s; raised to normal at 100s, l1 is still due at
			// 100s and keeps its place, ahead of n.
			ops: []pqOp{
				padd("l1", low), padd("l2", low), pwait(100 * time.Second), padd("n", normal), padd("l1", normal),
			},
			want: []handout{{"l1", normal}, {"l2", low}, {"n", normal}},
		},
		{
			name: "AddAfter keeps the priority of a waiting item",
			ops: []pqOp{
				pafter("a", low, time.Hour), padd("b", normal),
				func(_ *testing.T, q *queue.TypedPriorityQueue[string]) { q.AddAfter("a", time.Second) },
				pwait(time.Second),
			},
			want: []handout{{"b", normal}, {"a", low}},
		},
		{
			name: "AddAfter of an unknown item is at PriorityNormal",
			ops: []pqOp{
				padd("l", low),
				func(_ *testing.T, q *queue.TypedPriorityQueue[string]) { q.AddAfter("a", time.Second) },
				pwait(time.Second),
			},
			want: []handout{{"a", normal}, {"l", low}},
		},
		{
			name: "AddAfter and AddRateLimited while processing keep the handed-out priority",
			ops: []pqOp{
				padd("a", low), padd("b", high), pget("b", high), pget("a", low),
				func(_ *testing.T, q *queue.TypedPriorityQueue[string]) {
					q.AddAfter("a", time.Second)
					q.AddRateLimited("b")
				},
				pdone("a"), pdone("b"), padd("n", normal), pwait(time.Second),
			},
			want: []handout{{"b", high}, {"n", normal}, {"a", low}},
		},
		{
			name: "an add while processing sets the priority of the rerun",
			ops: []pqOp{
				padd("a", high), padd("b", low), pget("a", high), pget("b", low),
				padd("a", low), padd("b", normal), padd("n", normal), pdone("a"), pdone("b"),
			},
			// n became ready before b's rerun, at Done.
			want: []handout{{"n", normal}, {"b", normal}, {"a", low}},
		},
		{
			name: "a dirty item's priority rises with a later add",
			ops: []pqOp{
				padd("a", normal), pget("a", normal), padd("a", low), padd("n", normal), padd("a", high), pdone("a"),
			},
			want: []handout{{"a", high}, {"n", normal}},
		},
		{
			name: "rate-limited with After takes the shorter delay",
			ops: []pqOp{
				func(_ *testing.T, q *queue.TypedPriorityQueue[string]) {
					// The limiter says 1s; After says 1ms.
					q.AddWithOptions("a", queue.AddOptions{Priority: low, After: time.Millisecond, RateLimited: true})
				},
				pwait(time.Millisecond),
			},
			want: []handout{{"a", low}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := queue.NewTypedPriorityQueue(queue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Hour, 1), queue.PriorityOptions{})
				defer q.ShutDown()
				for _, op := range tt.ops {
					op(t, q)
				}
				if diff := cmp.Diff(tt.want, drain(t, q)); diff != "" {
					t.Errorf("handed out mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// Run keeps an item's priority when it retries it or requeues it after a
// delay: a low item stays behind normal ones.
func TestPriorityRunKeepsPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedPriorityQueue(queue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Second, 1), queue.PriorityOptions{})
		var got []string
		calls := map[string]int{}
		process := func(_ context.Context, item string) (queue.Result, error) {
			got = append(got, item)
			calls[item]++
			switch {
			case item == "low-failing" && calls[item] == 1:
				return queue.Result{}, errors.New("boom")
			case item == "low-requeued" && calls[item] == 1:
				return queue.Result{RequeueAfter: time.Second}, nil
			}
			return queue.Result{}, nil
		}
		q.AddWithOptions("low-failing", queue.AddOptions{Priority: queue.PriorityLow})
		q.AddWithOptions("low-requeued", queue.AddOptions{Priority: queue.PriorityLow})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- q.Run(ctx, process, queue.RunOptions[string]{Workers: 1}) }()
		synctest.Wait()
		// Both low items have run once and wait a second; two normal items
		// are added to be ready first when they come due.
		time.Sleep(time.Second - time.Nanosecond)
		q.Add("normal-1")
		q.AddAfter("normal-2", time.Nanosecond)
		synctest.Wait()
		time.Sleep(time.Second)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run() = %v", err)
		}
		want := []string{"low-failing", "low-requeued", "normal-1", "normal-2", "low-failing", "low-requeued"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("processing order mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestPriorityRaiseCompacts raises the priority of half of many ready
// items, so that the ready heap compacts its stale entries, and checks
// that the raised items come first, in the order of the raises, then the
// others in FIFO order.
func TestPriorityRaiseCompacts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
		defer q.ShutDown()
		const n = 1000
		for i := range n {
			q.AddWithOptions(strconv.Itoa(i), queue.AddOptions{Priority: queue.PriorityLow})
		}
		var want []handout
		for i := n - 1; i >= 0; i -= 2 {
			q.Add(strconv.Itoa(i))
			want = append(want, handout{strconv.Itoa(i), queue.PriorityNormal})
		}
		for i := 0; i < n; i += 2 {
			want = append(want, handout{strconv.Itoa(i), queue.PriorityLow})
		}
		if diff := cmp.Diff(want, drain(t, q)); diff != "" {
			t.Errorf("handed out mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(queue.State{}, q.State()); diff != "" {
			t.Errorf("State() at the end mismatch (-want +got):\n%s", diff)
		}
	})
}

// A process function requeues its item at another priority by adding it
// itself: the add while processing sets the priority of the next run.
func TestPriorityRunRequeueAtOtherPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedPriorityQueue[string](nil, queue.PriorityOptions{})
		var got []handout
		process := func(_ context.Context, item string) (queue.Result, error) {
			got = append(got, handout{Item: item})
			if item == "x" && len(got) == 1 {
				q.AddWithOptions("x", queue.AddOptions{Priority: queue.PriorityLow, After: time.Second})
			}
			return queue.Result{}, nil
		}
		q.Add("x")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- q.Run(ctx, process, queue.RunOptions[string]{Workers: 1}) }()
		synctest.Wait()
		q.AddWithOptions("y", queue.AddOptions{After: time.Second})
		time.Sleep(2 * time.Second)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run() = %v", err)
		}
		// x and y both became ready at 1s; x, now PriorityLow, is due 100s
		// later.
		if diff := cmp.Diff([]handout{{Item: "x"}, {Item: "y"}, {Item: "x"}}, got); diff != "" {
			t.Errorf("processing order mismatch (-want +got):\n%s", diff)
		}
	})
}
