package deltafifo_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/typedcache/typedcache/deltafifo"
)

// flight is a Pop or PopBatch whose processor is running, waiting to be
// told whether to requeue.
type flight struct {
	got     []popped
	release chan bool // true: return ErrRequeue
	started chan struct{}
	done    chan struct{}
	err     error
}

// harness runs one operation sequence on a DeltaFIFO and its model.
type harness struct {
	t       *testing.T
	ctx     context.Context
	f       fifo
	m       *model
	cache   *known // the consumer's cache, whether or not the FIFO sees it
	flights []*flight
	version int
}

var fuzzNames = []string{"a", "b", "c", "d", "e"}

func newHarness(t *testing.T, opts byte) *harness {
	cache := newKnown()
	var o deltafifo.Options[thing]
	var mk *known
	if opts&1 != 0 {
		o.KnownObjects, mk = cache, cache
	}
	if opts&4 != 0 {
		o.Transform = tagTransform
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // guards against a hang only
	t.Cleanup(cancel)
	var f fifo = deltafifo.New(thingKey, o)
	if opts&16 != 0 {
		f = newObjectFIFO(o) // keyed by keys.Of: keys built on the stack
	}
	if opts&8 != 0 {
		f.SetKeepSlots(0) // a drained FIFO may release its slots, however few
	}
	return &harness{
		t:     t,
		ctx:   ctx,
		f:     f,
		m:     newModel(mk, o.Transform != nil),
		cache: cache,
	}
}

func (h *harness) next() thing {
	h.version++
	return thing{Version: h.version}
}

// start begins a Pop (n == 0) or a PopBatch of n and waits until its
// processor runs.
func (h *harness) start(n int) {
	fl := &flight{release: make(chan bool), started: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(fl.done)
		finish := func() error {
			close(fl.started)
			if <-fl.release {
				return deltafifo.ErrRequeue
			}
			for _, p := range fl.got {
				h.cache.apply(p.Deltas)
			}
			return nil
		}
		if n == 0 {
			fl.err = h.f.Pop(h.ctx, func(key string, d deltafifo.Deltas[thing], initial bool) error {
				fl.got = []popped{{key, slices.Clone(d), initial}}
				return finish()
			})
		} else {
			fl.err = h.f.PopBatch(h.ctx, n, func(items []deltafifo.Item[thing]) error {
				for _, it := range items {
					fl.got = append(fl.got, popped{it.Key, slices.Clone(it.Deltas), it.InInitialList})
				}
				return finish()
			})
		}
	}()
	select {
	case <-fl.started:
	case <-fl.done:
		h.t.Fatalf("pop returned %v without calling its processor", fl.err)
	}
	want := h.m.take(max(n, 1))
	diffPopped(h.t, "pop", want, fl.got)
	h.flights = append(h.flights, fl)
}

// end lets flight i return, requeueing or not.
func (h *harness) end(i int, requeue bool) {
	fl := h.flights[i]
	h.flights = slices.Delete(h.flights, i, i+1)
	fl.release <- requeue
	<-fl.done
	if requeue != errors.Is(fl.err, deltafifo.ErrRequeue) || (!requeue && fl.err != nil) {
		h.t.Fatalf("pop returned %v, requeue %v", fl.err, requeue)
	}
	for _, p := range fl.got {
		h.m.finish(p.Key, requeue)
	}
}

func (h *harness) checkErr(call string, want, got error) {
	if !errors.Is(got, want) || (want == nil) != (got == nil) {
		h.t.Fatalf("%s = %v, want %v", call, got, want)
	}
}

// step decodes and runs one operation from two bytes.
func (h *harness) step(op, arg byte) {
	name := fuzzNames[int(arg)%len(fuzzNames)]
	switch op % 10 {
	case 0, 1, 2:
		t := []deltafifo.DeltaType{deltafifo.Added, deltafifo.Updated, deltafifo.Deleted}[op%10]
		obj := h.next()
		obj.Name = name
		if arg&0x80 != 0 {
			obj.Version = -obj.Version // fails the transform, if any
		}
		var err error
		switch t {
		case deltafifo.Added:
			err = h.f.Add(obj)
		case deltafifo.Updated:
			err = h.f.Update(obj)
		default:
			err = h.f.Delete(obj)
		}
		h.checkErr(t.String(), h.m.record(t, obj), err)
	case 3:
		var list []thing
		for i, n := range fuzzNames {
			if arg&(1<<i) != 0 {
				obj := h.next()
				obj.Name = n
				list = append(list, obj)
			}
		}
		if arg&0x20 != 0 && arg&0x40 != 0 {
			list = append(list, h.next()) // no name: key error
		}
		h.checkErr("Replace", h.m.replace(list), h.f.Replace(list, "1"))
	case 4:
		h.checkErr("Resync", h.m.resync(), h.f.Resync())
	case 5, 6:
		if len(h.flights) >= 3 {
			return
		}
		n := 0
		if op%10 == 6 {
			n = int(arg)%4 + 1
		}
		if len(h.m.order) == 0 {
			if !h.m.closed {
				// Would block: pop with a done context instead, which
				// takes nothing but lets an empty FIFO release its slots.
				ctx, cancel := context.WithCancel(h.ctx)
				cancel()
				err := h.f.Pop(ctx, func(string, deltafifo.Deltas[thing], bool) error {
					h.t.Fatal("processor called with a done context")
					return nil
				})
				h.checkErr("Pop with a done context", context.Canceled, err)
				return
			}
			err := h.f.Pop(h.ctx, func(string, deltafifo.Deltas[thing], bool) error {
				h.t.Fatal("processor called on a closed FIFO with nothing ready")
				return nil
			})
			h.checkErr("Pop on closed", deltafifo.ErrClosed, err)
			return
		}
		h.start(n)
	case 7, 8:
		if len(h.flights) > 0 {
			h.end(int(arg)%len(h.flights), op%10 == 8)
		}
	case 9:
		if arg%8 == 0 {
			h.f.Close()
			h.m.closed = true
		}
	}
}

// check compares what can be observed without popping.
func (h *harness) check() {
	h.t.Helper()
	if err := h.f.CheckInvariants(); err != nil {
		h.t.Fatalf("CheckInvariants() = %v", err)
	}
	if got, want := h.f.Len(), h.m.len(); got != want {
		h.t.Fatalf("Len() = %d, model %d", got, want)
	}
	keys := h.f.ListKeys()
	n := min(len(keys), len(h.m.order))
	if diff := cmp.Diff(h.m.order, keys[:n], cmpopts.EquateEmpty()); diff != "" {
		h.t.Fatalf("ListKeys() ready part mismatch (-want +got):\n%s", diff)
	}
	parked := slices.Sorted(maps.Keys(h.m.parked))
	if diff := cmp.Diff(parked, slices.Sorted(slices.Values(keys[n:])), cmpopts.EquateEmpty()); diff != "" {
		h.t.Fatalf("ListKeys() parked part mismatch (-want +got):\n%s", diff)
	}
	if got, want := h.f.HasSynced(), h.m.hasSynced(); got != want {
		h.t.Fatalf("HasSynced() = %v, model %v", got, want)
	}
	if got, want := h.f.Idle(), h.m.idle(); got != want {
		h.t.Fatalf("Idle() = %v, model %v", got, want)
	}
}

// drain ends every flight and pops everything left.
func (h *harness) drain() {
	for len(h.flights) > 0 {
		h.end(0, false)
		h.check()
	}
	for len(h.m.order) > 0 {
		h.start(0)
		h.end(0, false)
		h.check()
	}
}

func FuzzDeltaFIFO(f *testing.F) {
	seeds := [][]byte{
		{1, 0, 0, 1, 1, 5, 0, 3, 1, 5, 0, 2, 0, 7, 0},
		{1, 3, 0x1f, 0, 1, 5, 0, 2, 1, 3, 0x02, 8, 0, 5, 0, 7, 0},
		{5, 0, 0, 0, 1, 0, 2, 6, 3, 1, 0, 2, 3, 0, 4, 0, 8, 1, 7, 0},
		{7, 0, 0, 3, 0x03, 0, 1, 5, 0, 2, 1, 3, 0, 9, 0, 7, 0, 5, 0},
		{1, 3, 0x60, 0, 0x81, 3, 0x01, 4, 0, 6, 2, 7, 1},
		{9, 3, 0x1f, 6, 3, 5, 0, 7, 0, 5, 0, 3, 0x03, 0, 1, 5, 0, 8, 0, 2, 1, 7, 0, 5, 0, 4, 0},
		// Drains that release the slots of a list, then keep those of
		// smaller rounds.
		{9, 3, 0x1f, 6, 3, 7, 0, 5, 0, 7, 0, 5, 0, 0, 0, 0, 1, 5, 0, 7, 0, 5, 0, 7, 0, 5, 0, 1, 2, 5, 0, 7, 0, 5, 0},
		// Adds and updates, a pop in flight while more arrive, its end.
		{1, 0, 0x40, 1, 0x41, 0, 0x61, 0, 0x42, 5, 0, 1, 0x40, 2, 0x42, 7, 0},
	}
	for _, seed := range seeds {
		f.Add(seed)
		f.Add(append([]byte{seed[0] | 16}, seed[1:]...)) // the same, keyed by keys.Of
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		h := newHarness(t, data[0])
		for i := 1; i+1 < len(data); i += 2 {
			h.step(data[i], data[i+1])
			h.check()
		}
		h.drain()
	})
}
