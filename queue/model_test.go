package queue_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// model is a deliberately naive delaying work queue: slices and maps, no
// cleverness, every rule spelled out where it applies.
type model struct {
	now        time.Duration
	ready      []string // queued and not processing, oldest first
	queued     map[string]bool
	processing map[string]bool
	waiting    map[string]delayed
	seq        int
	shut       bool
}

type delayed struct {
	at  time.Duration
	seq int
}

func newModel() *model {
	return &model{queued: map[string]bool{}, processing: map[string]bool{}, waiting: map[string]delayed{}}
}

func (m *model) add(item string) {
	if m.shut || m.queued[item] {
		return
	}
	delete(m.waiting, item)
	m.queued[item] = true
	if !m.processing[item] {
		m.ready = append(m.ready, item)
	}
}

func (m *model) addAfter(item string, d time.Duration) {
	if m.shut {
		return
	}
	if d <= 0 {
		m.add(item)
		return
	}
	if m.queued[item] {
		return
	}
	if w, ok := m.waiting[item]; ok && w.at <= m.now+d {
		return
	}
	m.seq++
	m.waiting[item] = delayed{m.now + d, m.seq}
}

func (m *model) cancelAfter(item string) bool {
	_, ok := m.waiting[item]
	delete(m.waiting, item)
	return ok
}

func (m *model) dirty() int {
	n := 0
	for item := range m.queued {
		if m.processing[item] {
			n++
		}
	}
	return n
}

// get returns the item Get should hand out, or the error it should return,
// with context.Canceled standing for "blocks".
func (m *model) get() (string, error) {
	if len(m.ready) > 0 {
		item := m.ready[0]
		m.ready = m.ready[1:]
		delete(m.queued, item)
		m.processing[item] = true
		return item, nil
	}
	if m.shut && m.dirty() == 0 {
		return "", queue.ErrShutDown
	}
	return "", context.Canceled
}

func (m *model) done(item string) {
	if !m.processing[item] {
		return
	}
	delete(m.processing, item)
	if m.queued[item] {
		m.ready = append(m.ready, item)
	}
}

func (m *model) advance(d time.Duration) {
	m.now += d
	var due []string
	for item, w := range m.waiting {
		if w.at <= m.now {
			due = append(due, item)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		wa, wb := m.waiting[a], m.waiting[b]
		if wa.at != wb.at {
			return int(wa.at - wb.at)
		}
		return wa.seq - wb.seq
	})
	for _, item := range due {
		delete(m.waiting, item)
		m.queued[item] = true
		if !m.processing[item] {
			m.ready = append(m.ready, item)
		}
	}
}

func (m *model) shutDown() {
	m.shut = true
	clear(m.waiting)
}

func (m *model) drained() bool {
	return len(m.ready) == 0 && m.dirty() == 0 && len(m.processing) == 0
}

func (m *model) state() queue.State {
	slots := map[string]bool{}
	for _, set := range []map[string]bool{m.queued, m.processing} {
		for item := range set {
			slots[item] = true
		}
	}
	for item := range m.waiting {
		slots[item] = true
	}
	return queue.State{Ready: len(m.ready), Dirty: m.dirty(), Processing: len(m.processing), Waiting: len(m.waiting), Slots: len(slots)}
}

// blocking runs f in a goroutine and reports its result if it returns
// without the bubble's clock moving, or cancels it and reports
// context.Canceled, standing for "blocks".
func blocking[T any](f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		c <- result{v, err}
	}()
	synctest.Wait()
	select {
	case r := <-c:
		cancel()
		return r.v, r.err
	default:
		cancel()
		r := <-c
		if !errors.Is(r.err, context.Canceled) {
			return r.v, fmt.Errorf("returned %v after blocking", r.err)
		}
		return r.v, context.Canceled
	}
}

// FuzzQueue decodes bytes into operations on a TypedDelayingQueue and checks
// every outcome, and the internal state after every step, against model.
// An odd length, whose last byte is no operation, makes the queue defer its
// index removals as a large queue does.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 0, 0, 3, 0, 4, 0, 3, 0})
	f.Add([]byte{1, 2, 5, 1, 0, 1, 5, 3, 3, 0, 2, 1, 6, 0, 3, 0, 4, 0})
	f.Add([]byte{0, 1, 3, 0, 0, 1, 7, 0, 4, 1, 3, 0, 4, 1, 3, 0})
	f.Add([]byte{1, 4, 1, 2, 3, 1, 1, 3, 5, 3, 3, 0, 3, 0, 5, 2, 3, 0})
	f.Add([]byte{0, 0, 3, 0, 0, 1, 0, 0, 4, 0, 3, 1, 0, 1, 4, 1, 3, 0, 0, 0, 1, 2, 5, 0, 1})
	items := []string{"a", "b", "c", "d"}
	delays := []time.Duration{-time.Second, 0, time.Second, 2 * time.Second, 3 * time.Second}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data)%2 == 1 {
			defer queue.DeferRemovals()()
		}
		synctest.Test(t, func(t *testing.T) {
			q := queue.NewTypedDelayingQueue[string](queue.Options{})
			defer q.ShutDown()
			m := newModel()
			for i := 0; i+1 < len(data); i += 2 {
				op, arg := data[i]%8, int(data[i+1])
				item := items[arg%len(items)]
				var desc string
				switch op {
				case 0:
					desc = "Add(" + item + ")"
					q.Add(item)
					m.add(item)
				case 1:
					d := delays[(arg/len(items))%len(delays)]
					desc = fmt.Sprintf("AddAfter(%s, %v)", item, d)
					q.AddAfter(item, d)
					m.addAfter(item, d)
				case 2:
					desc = "CancelAfter(" + item + ")"
					if got, want := q.CancelAfter(item), m.cancelAfter(item); got != want {
						t.Fatalf("step %d: CancelAfter(%s) = %v, want %v", i/2, item, got, want)
					}
				case 3:
					desc = "Get"
					got, err := blocking(q.Get)
					want, wantErr := m.get()
					if got != want || !errors.Is(err, wantErr) {
						t.Fatalf("step %d: Get() = %q, %v, want %q, %v", i/2, got, err, want, wantErr)
					}
				case 4:
					desc = "Done(" + item + ")"
					q.Done(item)
					m.done(item)
				case 5:
					d := time.Duration(arg%4) * time.Second / 2
					desc = "sleep " + d.String()
					time.Sleep(d)
					synctest.Wait()
					m.advance(d)
				case 6:
					desc = "ShutDown"
					q.ShutDown()
					m.shutDown()
				case 7:
					desc = "ShutDownWithDrain"
					_, err := blocking(func(ctx context.Context) (struct{}, error) {
						return struct{}{}, q.ShutDownWithDrain(ctx)
					})
					m.shutDown()
					if want := m.drained(); (err == nil) != want {
						t.Fatalf("step %d: ShutDownWithDrain() = %v, model drained = %v", i/2, err, want)
					}
				}
				if got := q.Len(); got != len(m.ready) {
					t.Fatalf("step %d (%s): Len() = %d, want %d", i/2, desc, got, len(m.ready))
				}
				if diff := cmp.Diff(m.state(), q.State()); diff != "" {
					t.Fatalf("step %d (%s): State() mismatch (-want +got):\n%s", i/2, desc, diff)
				}
			}
		})
	})
}

// TestModelManyItems runs long random sequences over thousands of items, so
// that the item index grows, shrinks and shifts entries and the waiting heap
// accumulates and compacts stale entries, and checks every result against
// model.
func TestModelManyItems(t *testing.T) {
	for _, n := range []int{3, 100, 5000} {
		t.Run(fmt.Sprint(n, " items"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				q := queue.NewTypedDelayingQueue[string](queue.Options{})
				defer q.ShutDown()
				m := newModel()
				var held []string
				for step := range 100_000 {
					item := strconv.Itoa(rng.IntN(n))
					switch op := rng.IntN(20); {
					case op < 6:
						q.Add(item)
						m.add(item)
					case op < 9:
						d := time.Duration(1+rng.IntN(30)) * 100 * time.Millisecond
						q.AddAfter(item, d)
						m.addAfter(item, d)
					case op < 10:
						if got, want := q.CancelAfter(item), m.cancelAfter(item); got != want {
							t.Fatalf("step %d: CancelAfter(%s) = %v, want %v", step, item, got, want)
						}
					case op < 11:
						time.Sleep(100 * time.Millisecond)
						synctest.Wait()
						m.advance(100 * time.Millisecond)
					case op < 15 && len(m.ready) > 0:
						want, _ := m.get()
						got, err := q.Get(context.Background())
						if got != want || err != nil {
							t.Fatalf("step %d: Get() = %q, %v, want %q", step, got, err, want)
						}
						held = append(held, got)
					case len(held) > 0:
						i := rng.IntN(len(held))
						item := held[i]
						held[i] = held[len(held)-1]
						held = held[:len(held)-1]
						q.Done(item)
						m.done(item)
					}
					if step%500 == 0 || step > 99_500 {
						if diff := cmp.Diff(m.state(), q.State()); diff != "" {
							t.Fatalf("step %d: State() mismatch (-want +got):\n%s", step, diff)
						}
					}
				}
			})
		})
	}
}

// TestEmptiedQueueReleasesAndReuses drains a large queue, which releases
// its storage, and checks that it works as new afterwards.
func TestEmptiedQueueReleasesAndReuses(t *testing.T) {
	synctest.Test(t, testEmptiedQueueReleasesAndReuses)
}

func testEmptiedQueueReleasesAndReuses(t *testing.T) {
	q := queue.NewTypedDelayingQueue[int](queue.Options{})
	defer q.ShutDown()
	for round := range 2 {
		const n = 70_000
		q.AddAfter(-1, time.Millisecond)
		if round == 0 {
			q.CancelAfter(-1) // leaves a stale waiter behind
		}
		for i := range n {
			q.Add(i)
		}
		for i := range n {
			got, err := q.Get(context.Background())
			if got != i || err != nil {
				t.Fatalf("round %d: Get() = %d, %v, want %d", round, got, err, i)
			}
			q.Done(got)
		}
		if round == 1 {
			if got, err := q.Get(context.Background()); got != -1 || err != nil {
				t.Fatalf("round %d: Get() = %d, %v, want the delayed -1", round, got, err)
			}
			q.Done(-1)
		}
		if diff := cmp.Diff(queue.State{}, q.State()); diff != "" {
			t.Fatalf("round %d: State() mismatch (-want +got):\n%s", round, diff)
		}
	}
}

// TestStaleWaitersCompacted supersedes and cancels most of many delayed adds,
// so that the waiting heap compacts its stale entries, and checks that
// exactly the remaining ones come out, in ready-time order.
func TestStaleWaitersCompacted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := queue.NewTypedDelayingQueue[int](queue.Options{})
		defer q.ShutDown()
		const n = 1000
		for i := range n {
			q.AddAfter(i, time.Hour+time.Duration(n-i)*time.Millisecond) // later items due first
		}
		var want []int
		for i := range n {
			switch {
			case i%2 == 0:
				q.Add(i) // supersedes
			case i%3 == 0:
				if !q.CancelAfter(i) {
					t.Fatalf("CancelAfter(%d) = false, want true", i)
				}
			default:
				want = append([]int{i}, want...)
			}
		}
		if diff := cmp.Diff(queue.State{Ready: n / 2, Waiting: len(want), Slots: n/2 + len(want)}, q.State()); diff != "" {
			t.Fatalf("State() mismatch (-want +got):\n%s", diff)
		}
		for range n / 2 {
			item, _ := q.Get(context.Background())
			q.Done(item)
		}
		time.Sleep(2 * time.Hour)
		var got []int
		for q.Len() > 0 {
			item, _ := q.Get(context.Background())
			got = append(got, item)
			q.Done(item)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("delayed items mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(queue.State{}, q.State()); diff != "" {
			t.Errorf("State() at the end mismatch (-want +got):\n%s", diff)
		}
	})
}
