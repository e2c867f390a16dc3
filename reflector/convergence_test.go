package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// item is the object type of the convergence tests: memsource stamps
// versions on it.
type item struct {
	ns, name, rv string
	val          int
}

func (x *item) GetNamespace() string        { return x.ns }
func (x *item) GetName() string             { return x.name }
func (x *item) GetResourceVersion() string  { return x.rv }
func (x *item) SetResourceVersion(v string) { x.rv = v }

// state is what a store holds: key to version and value.
type state map[string]string

func stateOf(x *item) string { return fmt.Sprintf("%s=%d", x.rv, x.val) }

// mirror is the consumer side under test: a store the reflector writes
// into, and a way to read what it holds once everything has settled.
type mirror interface {
	store() reflector.Store[*item]
	state() state
	stop()
}

// mapMirror is a plain map behind the Store interface.
type mapMirror struct {
	mu sync.Mutex
	m  map[string]*item
}

func newMapMirror(context.Context) mirror { return &mapMirror{m: map[string]*item{}} }

func (s *mapMirror) store() reflector.Store[*item] { return s }
func (s *mapMirror) stop()                         {}
func (s *mapMirror) put(x *item) error {
	k, err := keys.Of(x)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = x
	return nil
}
func (s *mapMirror) Add(x *item) error    { return s.put(x) }
func (s *mapMirror) Update(x *item) error { return s.put(x) }
func (s *mapMirror) Delete(x *item) error {
	k, err := keys.Of(x)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}
func (s *mapMirror) Replace(items []*item, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.m)
	for _, x := range items {
		k, err := keys.Of(x)
		if err != nil {
			return err
		}
		s.m[k] = x
	}
	return nil
}
func (s *mapMirror) Resync() error { return nil }
func (s *mapMirror) state() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := state{}
	for k, x := range s.m {
		st[k] = stateOf(x)
	}
	return st
}

// fifoMirror is the informer's pipeline: a DeltaFIFO whose deltas a
// goroutine applies to an Indexer.
type fifoMirror struct {
	fifo *deltafifo.DeltaFIFO[*item]
	idx  *indexer.Indexer[*item]
	done chan struct{}
}

func newFIFOMirror(ctx context.Context) mirror {
	idx := indexer.New(keys.Of[*item], nil)
	m := &fifoMirror{
		fifo: deltafifo.New(keys.Of[*item], deltafifo.Options[*item]{KnownObjects: idx}),
		idx:  idx,
		done: make(chan struct{}),
	}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			err := m.fifo.Pop(ctx, func(key string, d deltafifo.Deltas[*item], _ bool) error {
				newest := d[len(d)-1]
				if newest.Type == deltafifo.Deleted {
					_, _, err := idx.DeleteKey(key)
					return err
				}
				_, _, err := idx.Put(key, newest.Object)
				return err
			})
			if errors.Is(err, deltafifo.ErrClosed) {
				return
			}
		}
	}()
	return m
}

func (m *fifoMirror) store() reflector.Store[*item] { return m.fifo }
func (m *fifoMirror) stop() {
	m.fifo.Close()
	<-m.done
}
func (m *fifoMirror) state() state {
	st := state{}
	for k, x := range m.idx.All() {
		st[k] = stateOf(x)
	}
	return st
}

// sourceState returns what src holds.
func sourceState(t *testing.T, src *memsource.Source[*item]) state {
	t.Helper()
	src.SetFaults(memsource.Faults{}) // faults meant for the reflector
	res, err := src.List(t.Context(), reflector.ListOptions{})
	if err != nil {
		t.Fatalf("List() of the source: %v", err)
	}
	st := state{}
	for _, x := range res.Items {
		k, _ := keys.Of(x)
		st[k] = stateOf(x)
	}
	return st
}

// op is one step of a convergence run: a write to the source, a fault, or
// time passing.
type op struct {
	kind byte
	arg  byte
}

// opKinds weighs the kinds of operation: mostly writes, with time passing
// and the reflector catching up between them, and now and then a fault.
var opKinds = []string{
	"create", "create", "create", "create", "create", "create",
	"update", "update", "update", "update", "update", "update", "update", "update",
	"delete", "delete", "delete",
	"sleep", "sleep", "sleep", "sleep", "sleep", "settle", "settle", "settle",
	"close watches after", "fail", "expire", "compact or close",
}

// apply performs o on src; n numbers the write.
func (o op) apply(src *memsource.Source[*item], n int) {
	name := fmt.Sprintf("o%02d", o.arg%32)
	ns := []string{"a", "b"}[o.arg/32%2]
	switch opKinds[int(o.kind)%len(opKinds)] {
	case "create":
		_, _ = src.Create(&item{ns: ns, name: name, val: n})
	case "update":
		_, _ = src.Update(&item{ns: ns, name: name, val: n})
	case "delete":
		_, _ = src.Delete(keys.Join(ns, name))
	case "sleep":
		time.Sleep(time.Duration(o.arg) * 10 * time.Millisecond)
	case "settle":
		synctest.Wait()
	case "close watches after":
		f := src.Faults()
		f.CloseWatchesAfter = int(o.arg % 8)
		src.SetFaults(f)
	case "fail":
		f := src.Faults()
		switch o.arg % 3 {
		case 0:
			f.FailLists = 1 + int(o.arg%2)
		case 1:
			f.FailWatches = 1 + int(o.arg%2)
		case 2:
			f.Err = reflector.ErrExpired
			f.FailLists = 1
		}
		src.SetFaults(f)
	case "expire":
		f := src.Faults()
		f.ExpireWatches = 1 + int(o.arg%2)
		src.SetFaults(f)
	case "compact or close":
		if o.arg%2 == 0 {
			src.Compact()
		} else {
			src.CloseWatches()
		}
	}
}

// decodeOps turns fuzz input into operations, two bytes each.
func decodeOps(data []byte) []op {
	ops := make([]op, 0, len(data)/2)
	for i := 0; i+1 < len(data); i += 2 {
		ops = append(ops, op{data[i], data[i+1]})
	}
	return ops
}

// convergence configures a source and a reflector for a convergence run.
type convergence struct {
	name   string
	source memsource.Options[*item]
	opts   reflector.Options
	mirror func(context.Context) mirror
}

// quickBackoff keeps the reflector watching more of the time while faults
// fire often.
var quickBackoff = reflector.Backoff{Initial: 50 * time.Millisecond, Max: time.Second}

var convergences = []convergence{
	{name: "all capabilities into a map", mirror: newMapMirror},
	{name: "all capabilities into DeltaFIFO and Indexer", mirror: newFIFOMirror},
	{
		name:   "short history, small pages, quick backoff",
		source: memsource.Options[*item]{HistorySize: 8},
		opts:   reflector.Options{Tuning: reflector.Tuning{PageSize: 3, Backoff: quickBackoff}},
		mirror: newFIFOMirror,
	},
	{
		name:   "no streaming list, opaque versions",
		source: memsource.Options[*item]{DisableStreamingList: true, OpaqueVersions: true, HistorySize: 16},
		mirror: newFIFOMirror,
	},
	{
		name: "minimal source, quick backoff",
		source: memsource.Options[*item]{
			DisablePagination: true, DisableBookmarks: true, DisableStreamingList: true, HistorySize: 16,
		},
		opts:   reflector.Options{Tuning: reflector.Tuning{Backoff: quickBackoff}},
		mirror: newMapMirror,
	},
	{
		name:   "streaming disabled by option, resyncing",
		opts:   reflector.Options{ResyncPeriod: 3 * time.Second, Tuning: reflector.Tuning{DisableStreamingList: true}},
		mirror: newFIFOMirror,
	},
}

// converge runs a reflector from src into a mirror while ops write to the
// source and inject faults, then checks that, once the writes stop, the
// mirror holds exactly what the source holds.
func (c convergence) converge(t *testing.T, ops []op) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		src := memsource.New(c.source)
		m := c.mirror(ctx)
		var mu sync.Mutex
		var bad []error
		opts := c.opts
		opts.Logger = discardLogger
		opts.ErrorHandler = func(_ context.Context, err error) {
			if errors.Is(err, reflector.ErrMalformed) || errors.Is(err, reflector.ErrStore) {
				mu.Lock()
				bad = append(bad, err)
				mu.Unlock()
			}
		}
		r := reflector.New(src, m.store(), opts)
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx)
		}()
		for i, o := range ops {
			o.apply(src, i)
		}
		// Let faults wear off and backoffs end; no more writes.
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		want, got := sourceState(t, src), m.state()
		rv := r.LastSyncResourceVersion()
		cancel()
		<-done
		m.stop()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("store after convergence mismatch (-source +store):\n%s", diff)
		}
		if rv != src.ResourceVersion() {
			t.Errorf("LastSyncResourceVersion() = %q, source at %q", rv, src.ResourceVersion())
		}
		if len(bad) > 0 {
			t.Errorf("errors that a correct source never causes: %v", bad)
		}
	})
}

// randomOps returns n random operations.
func randomOps(seed uint64, n int) []op {
	rng := rand.New(rand.NewPCG(seed, seed))
	ops := make([]op, n)
	for i := range ops {
		ops[i] = op{byte(rng.IntN(len(opKinds))), byte(rng.IntN(256))}
	}
	return ops
}

func TestConvergence(t *testing.T) {
	for _, c := range convergences {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("%s/seed=%d", c.name, seed), func(t *testing.T) {
				c.converge(t, randomOps(seed, 400))
			})
		}
	}
}

func FuzzConvergence(f *testing.F) {
	for seed := range uint64(3) {
		var data []byte
		for _, o := range randomOps(seed+100, 200) {
			data = append(data, o.kind, o.arg)
		}
		f.Add(byte(seed), data)
	}
	f.Fuzz(func(t *testing.T, config byte, data []byte) {
		convergences[int(config)%len(convergences)].converge(t, decodeOps(data))
	})
}
