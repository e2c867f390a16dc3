package queue_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/queue"
)

// pmodel is a deliberately naive priority queue: one record per item, and
// Get scans them all for the earliest virtual deadline.
type pmodel struct {
	now   time.Duration
	aging time.Duration
	items map[string]*pitem
	seq   int // orders becoming ready and AddAfter calls
	shut  bool
}

type pitem struct {
	queued, processing, waiting bool
	prio                        queue.Priority // of the pending add, or the one handed out
	at                          time.Duration  // its deadline, while ready
	order                       int            // when it got that deadline, among equal deadlines
	waitAt                      time.Duration
	waitSeq                     int
}

func newPModel(aging time.Duration) *pmodel {
	return &pmodel{aging: aging, items: map[string]*pitem{}}
}

// rerank applies the priority rule of an add at p (keep: keep the item's),
// whatever its delay.
func (m *pmodel) rerank(name string, p queue.Priority, keep bool) *pitem {
	it := m.items[name]
	if it == nil {
		it = &pitem{prio: queue.PriorityNormal}
		m.items[name] = it
	}
	switch {
	case keep:
	case !it.queued && !it.waiting:
		it.prio = p
	case p > it.prio:
		it.prio = p
		// A ready item is due at the earlier of its deadline and an
		// immediate add's, whatever the add's delay: it is ready already.
		if at := m.now - time.Duration(p)*m.aging; it.queued && !it.processing && at < it.at {
			m.seq++
			it.at, it.order = at, m.seq
		}
	}
	return it
}

func (m *pmodel) add(name string, p queue.Priority, keep bool) {
	if m.shut {
		return
	}
	it := m.rerank(name, p, keep)
	if it.queued {
		return
	}
	it.waiting, it.queued = false, true
	if !it.processing {
		m.ready(it, m.now)
	}
}

func (m *pmodel) addAfter(name string, d time.Duration, p queue.Priority, keep bool) {
	if m.shut {
		return
	}
	if d <= 0 {
		m.add(name, p, keep)
		return
	}
	it := m.rerank(name, p, keep)
	if it.queued || it.waiting && it.waitAt <= m.now+d {
		return
	}
	m.seq++
	it.waiting, it.waitAt, it.waitSeq = true, m.now+d, m.seq
}

func (m *pmodel) ready(it *pitem, since time.Duration) {
	m.seq++
	it.at, it.order = since-time.Duration(it.prio)*m.aging, m.seq
}

func (m *pmodel) readyItems() []string {
	var names []string
	for name, it := range m.items {
		if it.queued && !it.processing {
			names = append(names, name)
		}
	}
	return names
}

// get returns what GetWithPriority should, context.Canceled standing for
// "blocks".
func (m *pmodel) get() (string, queue.Priority, error) {
	names := m.readyItems()
	if len(names) == 0 {
		if m.shut && m.count(func(it *pitem) bool { return it.queued && it.processing }) == 0 {
			return "", 0, queue.ErrShutDown
		}
		return "", 0, context.Canceled
	}
	name := slices.MinFunc(names, func(a, b string) int {
		x, y := m.items[a], m.items[b]
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.order, y.order))
	})
	it := m.items[name]
	it.queued, it.processing = false, true
	return name, it.prio, nil
}

func (m *pmodel) done(name string) {
	it := m.items[name]
	if it == nil || !it.processing {
		return
	}
	it.processing = false
	switch {
	case it.queued:
		m.ready(it, m.now)
	case !it.waiting:
		delete(m.items, name)
	}
}

func (m *pmodel) advance(d time.Duration) {
	m.now += d
	var due []*pitem
	for _, it := range m.items {
		if it.waiting && it.waitAt <= m.now {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(x, y *pitem) int {
		return cmp.Or(cmp.Compare(x.waitAt, y.waitAt), cmp.Compare(x.waitSeq, y.waitSeq))
	})
	for _, it := range due {
		it.waiting, it.queued = false, true
		if !it.processing {
			m.ready(it, it.waitAt)
		}
	}
}

func (m *pmodel) shutDown() {
	m.shut = true
	maps.DeleteFunc(m.items, func(_ string, it *pitem) bool {
		it.waiting = false
		return !it.queued && !it.processing
	})
}

func (m *pmodel) count(f func(*pitem) bool) int {
	n := 0
	for _, it := range m.items {
		if f(it) {
			n++
		}
	}
	return n
}

func (m *pmodel) state() queue.State {
	return queue.State{
		Ready:      len(m.readyItems()),
		Dirty:      m.count(func(it *pitem) bool { return it.queued && it.processing }),
		Processing: m.count(func(it *pitem) bool { return it.processing }),
		Waiting:    m.count(func(it *pitem) bool { return it.waiting }),
		Slots:      len(m.items),
	}
}

// pOps are the operations of the priority model tests. Each applies itself,
// with the argument arg, to the queue and the model, checks what it can
// and describes itself.
var pOps = []func(t *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, arg int) string{
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, arg int) string {
		p := pPriorities[arg%len(pPriorities)]
		if p == queue.PriorityNormal {
			q.Add(item)
		} else {
			q.AddWithOptions(item, queue.AddOptions{Priority: p})
		}
		m.add(item, p, false)
		return fmt.Sprintf("Add(%s, %d)", item, p)
	},
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, arg int) string {
		p, d := pPriorities[arg%len(pPriorities)], pDelays[(arg/len(pPriorities))%len(pDelays)]
		q.AddWithOptions(item, queue.AddOptions{Priority: p, After: d})
		m.addAfter(item, d, p, false)
		return fmt.Sprintf("AddWithOptions(%s, %d, After %v)", item, p, d)
	},
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, arg int) string {
		d := pDelays[arg%len(pDelays)]
		q.AddAfter(item, d)
		m.addAfter(item, d, 0, true)
		return fmt.Sprintf("AddAfter(%s, %v)", item, d)
	},
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, _ int) string {
		q.AddRateLimited(item) // the limiter always says 1s
		m.addAfter(item, time.Second, 0, true)
		return "AddRateLimited(" + item + ")"
	},
	func(t *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, _ string, _ int) string {
		type got struct {
			item string
			p    queue.Priority
		}
		g, err := blocking(func(ctx context.Context) (got, error) {
			item, p, err := q.GetWithPriority(ctx)
			return got{item, p}, err
		})
		item, p, wantErr := m.get()
		if g.item != item || g.p != p || !errors.Is(err, wantErr) {
			t.Fatalf("GetWithPriority() = %q, %d, %v, want %q, %d, %v", g.item, g.p, err, item, p, wantErr)
		}
		return "Get"
	},
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, item string, _ int) string {
		q.Done(item)
		m.done(item)
		return "Done(" + item + ")"
	},
	func(_ *testing.T, _ *queue.TypedPriorityQueue[string], m *pmodel, _ string, arg int) string {
		d := time.Duration(arg%4) * time.Second / 2
		time.Sleep(d)
		synctest.Wait()
		m.advance(d)
		return "sleep " + d.String()
	},
	func(_ *testing.T, q *queue.TypedPriorityQueue[string], m *pmodel, _ string, _ int) string {
		q.ShutDown()
		m.shutDown()
		return "ShutDown"
	},
}

var (
	pPriorities = []queue.Priority{queue.PriorityNormal, queue.PriorityLow, 50, -30}
	pDelays     = []time.Duration{-time.Second, 0, time.Second / 2, time.Second, 3 * time.Second / 2}
)

// pAging makes a PriorityLow item worth 1s less than a PriorityNormal one,
// on the scale of the tests' delays.
const pAging = 10 * time.Millisecond

func newPQ() *queue.TypedPriorityQueue[string] {
	return queue.NewTypedPriorityQueue(queue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Second, 0),
		queue.PriorityOptions{Aging: pAging})
}

// FuzzPriorityQueue decodes bytes into operations on a TypedPriorityQueue
// and checks every outcome, and the internal state after every step,
// against pmodel.
func FuzzPriorityQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 4, 0, 4, 0, 5, 0, 5, 1})
	f.Add([]byte{1, 6, 0, 1, 6, 3, 4, 0, 0, 4, 4, 0})
	f.Add([]byte{0, 0, 4, 0, 0, 1, 0, 0, 1, 4, 4, 0, 5, 0, 4, 0})
	f.Add([]byte{2, 3, 3, 1, 0, 9, 6, 3, 4, 0, 4, 0, 7, 0, 4, 0})
	items := []string{"a", "b", "c"}
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			q, m := newPQ(), newPModel(pAging)
			defer q.ShutDown()
			for i := 0; i+1 < len(data); i += 2 {
				arg := int(data[i+1])
				desc := pOps[int(data[i])%len(pOps)](t, q, m, items[arg%len(items)], arg/len(items))
				checkPModel(t, i/2, desc, q, m)
			}
		})
	})
}

func checkPModel(t *testing.T, step int, desc string, q *queue.TypedPriorityQueue[string], m *pmodel) {
	t.Helper()
	if diff := gocmp.Diff(m.state(), q.State()); diff != "" {
		t.Fatalf("step %d (%s): State() mismatch (-want +got):\n%s", step, desc, diff)
	}
}

// TestPriorityModelManyItems runs long random sequences over many items,
// so that the ready heap accumulates and compacts stale entries, and checks
// every result against pmodel.
func TestPriorityModelManyItems(t *testing.T) {
	for _, n := range []int{3, 200} {
		t.Run(fmt.Sprint(n, " items"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 9))
				q, m := newPQ(), newPModel(pAging)
				defer q.ShutDown()
				// Weights of pOps, without ShutDown; Get only when an item is
				// ready, Done mostly of a processing item.
				weights := []int{6, 3, 2, 1, 4, 4, 1}
				for step := range 20_000 {
					op := pick(rng, weights)
					item := strconv.Itoa(rng.IntN(n))
					if op == 4 && q.Len() == 0 {
						continue
					}
					if op == 5 {
						if held := m.count(func(it *pitem) bool { return it.processing }); held > 0 {
							item = heldItem(m, rng.IntN(held))
						}
					}
					desc := pOps[op](t, q, m, item, rng.IntN(256))
					if step%100 == 0 {
						checkPModel(t, step, desc, q, m)
					}
				}
			})
		})
	}
}

// pick returns an index of weights with probability proportional to its weight.
func pick(rng *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

// heldItem returns the i-th processing item of m, in name order.
func heldItem(m *pmodel, i int) string {
	var held []string
	for name, it := range m.items {
		if it.processing {
			held = append(held, name)
		}
	}
	slices.Sort(held)
	return held[i]
}
