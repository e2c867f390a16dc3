package deltafifo

import (
	"errors"
	"fmt"
)

// Handoff records that obj was added, updated or deleted (t is Added,
// Updated or Deleted), as Add, Update and Delete do, except when the FIFO is
// idle: no key is ready or being processed and no other Handoff is under way.
// Then Handoff queues nothing and calls process with the key and the delta
// itself, on the caller's goroutine, so that a consumer that keeps up is
// spared the trip through Pop and the wakeup of its goroutine. Handoff
// returns process's error, or nil when the delta was queued.
//
// While process runs, the delta counts as being processed: Pop and PopBatch
// take nothing (deltas recorded meanwhile wait behind it), and a Delete of
// the key is not dropped. If process returns an error wrapping ErrRequeue,
// or panics, the delta is queued, in front of the key's deltas recorded
// meanwhile, and Handoff returns nil (or the panic goes on). A deletion is
// dropped as Delete drops it. The same rules as for Pop apply to what
// process may do with the delta. A nil process always queues.
func (f *DeltaFIFO[T]) Handoff(t DeltaType, obj T, process func(key string, d Delta[T]) error) error {
	if t != Added && t != Updated && t != Deleted {
		return fmt.Errorf("deltafifo: Handoff of a %v delta", t)
	}
	return f.record(t, obj, process)
}

// handOff calls process for the delta d of key, which Handoff has marked as
// handed off, and ends the handoff.
func (f *DeltaFIFO[T]) handOff(key string, d Delta[T], process func(key string, d Delta[T]) error) error {
	requeue := true // if process panics
	defer func() {
		f.mu.Lock()
		f.handing, f.handed, f.handedDelta = false, "", Delta[T]{}
		if requeue {
			f.requeueHandedLocked(key, d)
		}
		if f.ready.Len() > 0 {
			// Poppers ignored the keys that became ready meanwhile.
			f.cond.Broadcast()
		}
		f.mu.Unlock()
	}()
	err := process(key, d)
	requeue = err != nil && errors.Is(err, ErrRequeue)
	if requeue {
		return nil
	}
	return err
}

// requeueHandedLocked queues d, the delta of a handoff whose processor asked
// for a requeue, in front of the deltas recorded for key meanwhile.
// Requires f.mu held, and no Pop having taken key since the handoff began,
// which waitLocked ensures.
func (f *DeltaFIFO[T]) requeueHandedLocked(key string, d Delta[T]) {
	i, ok := f.lookupLocked(key, f.index.hash(key))
	if !ok || f.slots.at(i).state != slotQueued {
		f.addLocked(key, d)
		return
	}
	s := f.slots.at(i)
	if s.deltas[0].Type == Deleted && d.Type == Deleted {
		// Collapse as appendDelta does: the older deletion stays unless it
		// was inferred.
		if !d.Inferred {
			s.deltas[0] = d
		}
		return
	}
	s.deltas = append(s.deltas, Delta[T]{})
	copy(s.deltas[1:], s.deltas)
	s.deltas[0] = d
}
