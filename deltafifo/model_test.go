package deltafifo_test

import (
	"maps"
	"slices"

	"github.com/typedcache/typedcache/deltafifo"
)

// model is a deliberately naive DeltaFIFO: maps of slices, every rule
// spelled out once, no slots, no ring, no reuse. The fuzz test checks the
// real DeltaFIFO against it.
type model struct {
	order    []string               // ready keys, in pop order
	queued   map[string]*modelEntry // deltas of the ready keys
	inflight map[string]*modelEntry // deltas with a processor
	parked   map[string]*modelEntry // deltas that arrived while in flight

	known     *known // nil when the FIFO has no KnownObjects
	transform bool
	populated bool
	closed    bool
}

type modelEntry struct {
	deltas  deltafifo.Deltas[thing]
	initial bool
}

func newModel(k *known, transform bool) *model {
	return &model{
		queued:    make(map[string]*modelEntry),
		inflight:  make(map[string]*modelEntry),
		parked:    make(map[string]*modelEntry),
		known:     k,
		transform: transform,
	}
}

// collapse appends d to ds, merging consecutive deletions: the older one
// stays unless it was inferred.
func collapse(ds deltafifo.Deltas[thing], d deltafifo.Delta[thing]) deltafifo.Deltas[thing] {
	if len(ds) > 0 && ds[len(ds)-1].Type == deltafifo.Deleted && d.Type == deltafifo.Deleted {
		if ds[len(ds)-1].Inferred {
			ds[len(ds)-1] = d
		}
		return ds
	}
	return append(ds, d)
}

func (m *model) hasDeltas(k string) bool {
	return m.queued[k] != nil || m.inflight[k] != nil
}

func (m *model) isKnown(k string) bool {
	if m.known == nil {
		return false
	}
	_, ok := m.known.GetByKey(k)
	return ok
}

func (m *model) knownKeys() []string {
	if m.known == nil {
		return nil
	}
	return slices.Collect(m.known.Keys())
}

// add appends d to k's pending deltas and returns the entry that got it.
func (m *model) add(k string, d deltafifo.Delta[thing]) *modelEntry {
	switch {
	case m.inflight[k] != nil:
		if m.parked[k] == nil {
			m.parked[k] = &modelEntry{}
		}
		m.parked[k].deltas = collapse(m.parked[k].deltas, d)
		return m.parked[k]
	case m.queued[k] != nil:
		m.queued[k].deltas = collapse(m.queued[k].deltas, d)
		return m.queued[k]
	default:
		e := &modelEntry{deltas: deltafifo.Deltas[thing]{d}}
		m.queued[k] = e
		m.order = append(m.order, k)
		return e
	}
}

// in returns obj as the FIFO stores it, or the error it reports.
func (m *model) in(obj thing) (thing, error) {
	if obj.Name == "" {
		return obj, errNoName
	}
	if m.transform {
		return tagTransform(obj)
	}
	return obj, nil
}

func (m *model) record(t deltafifo.DeltaType, obj thing) error {
	obj, err := m.in(obj)
	if err != nil {
		return err
	}
	if m.closed {
		return deltafifo.ErrClosed
	}
	m.populated = true
	if t == deltafifo.Deleted && !m.hasDeltas(obj.Name) && !m.isKnown(obj.Name) {
		return nil
	}
	m.add(obj.Name, deltafifo.Delta[thing]{Type: t, Object: obj})
	return nil
}

func (m *model) replace(list []thing) error {
	objs := make([]thing, len(list))
	for i, o := range list {
		var err error
		if objs[i], err = m.in(o); err != nil {
			return err
		}
	}
	if m.closed {
		return deltafifo.ErrClosed
	}
	first := !m.populated
	m.populated = true
	mark := func(e *modelEntry) {
		if first {
			e.initial = true
		}
	}
	listed := make(map[string]bool)
	for _, o := range objs {
		listed[o.Name] = true
		mark(m.add(o.Name, deltafifo.Delta[thing]{Type: deltafifo.Replaced, Object: o}))
	}
	pending := slices.Sorted(maps.Keys(m.queued))
	pending = append(pending, slices.Sorted(maps.Keys(m.inflight))...)
	for _, k := range pending {
		if listed[k] {
			continue
		}
		var newest deltafifo.Delta[thing]
		switch {
		case m.queued[k] != nil:
			newest = m.queued[k].deltas[len(m.queued[k].deltas)-1]
		case m.parked[k] != nil:
			newest = m.parked[k].deltas[len(m.parked[k].deltas)-1]
		default:
			newest = m.inflight[k].deltas[len(m.inflight[k].deltas)-1]
		}
		mark(m.add(k, deltafifo.Delta[thing]{Type: deltafifo.Deleted, Object: newest.Object, Inferred: true}))
	}
	for _, k := range m.knownKeys() {
		if m.hasDeltas(k) {
			continue
		}
		obj, _ := m.known.GetByKey(k)
		mark(m.add(k, deltafifo.Delta[thing]{Type: deltafifo.Deleted, Object: obj, Inferred: true}))
	}
	return nil
}

func (m *model) resync() error {
	if m.closed {
		return deltafifo.ErrClosed
	}
	for _, k := range m.knownKeys() {
		if m.hasDeltas(k) {
			continue
		}
		if obj, ok := m.known.GetByKey(k); ok {
			m.add(k, deltafifo.Delta[thing]{Type: deltafifo.Sync, Object: obj})
		}
	}
	return nil
}

// take moves up to n ready keys in flight, stopping where the initial
// flag changes, and returns what their processor gets.
func (m *model) take(n int) []popped {
	var out []popped
	for len(m.order) > 0 && len(out) < n {
		k := m.order[0]
		e := m.queued[k]
		if len(out) > 0 && e.initial != out[0].Initial {
			break
		}
		m.order = m.order[1:]
		delete(m.queued, k)
		m.inflight[k] = e
		out = append(out, popped{k, slices.Clone(e.deltas), e.initial})
	}
	return out
}

// finish ends the processing of k.
func (m *model) finish(k string, requeue bool) {
	e, p := m.inflight[k], m.parked[k]
	delete(m.inflight, k)
	delete(m.parked, k)
	if requeue {
		if p != nil {
			for _, d := range p.deltas {
				e.deltas = collapse(e.deltas, d)
			}
			e.initial = e.initial || p.initial
		}
		m.queued[k] = e
		m.order = append(m.order, k)
		return
	}
	if p == nil {
		return
	}
	if e.deltas[len(e.deltas)-1].Type == deltafifo.Deleted && p.deltas[0].Type == deltafifo.Deleted {
		p.deltas = p.deltas[1:]
	}
	if len(p.deltas) > 0 {
		m.queued[k] = p
		m.order = append(m.order, k)
	}
}

func (m *model) hasSynced() bool {
	if !m.populated {
		return false
	}
	for _, es := range []map[string]*modelEntry{m.queued, m.inflight, m.parked} {
		for _, e := range es {
			if e.initial {
				return false
			}
		}
	}
	return true
}

func (m *model) len() int { return len(m.order) + len(m.parked) }

// idle reports whether no key is queued or in flight.
func (m *model) idle() bool { return len(m.order) == 0 && len(m.inflight) == 0 }
