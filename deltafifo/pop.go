package deltafifo

import (
	"context"
	"errors"
	"fmt"
)

// Pop waits until a key is ready, removes it and calls process with the
// key, its deltas (oldest first) and whether they belong to the first
// Replace. It returns process's error. If that error wraps ErrRequeue, the
// deltas are queued again, in front of those that arrived for the key
// meanwhile; otherwise they are gone. If process panics, the deltas are
// queued again and the panic continues.
//
// process runs without the FIFO's lock, so it may call the FIFO. It must
// not keep or modify d after it returns: the FIFO reuses its memory (use
// slices.Clone to keep a copy). While it runs, no other Pop or PopBatch is
// given the same key; deltas arriving for the key wait until it returns.
//
// Pop returns ctx.Err(), taking nothing, once ctx is done, even if a key is
// ready; and ErrClosed once the FIFO is closed and no key is ready.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process func(key string, d Deltas[T], isInInitialList bool) error) error {
	if f.zero() {
		return errZero
	}
	f.mu.Lock()
	if err := f.waitLocked(ctx); err != nil {
		f.mu.Unlock()
		return err
	}
	i := f.takeLocked()
	s := f.slots.at(i)
	key, deltas, initial := s.key, s.deltas, s.initial
	f.mu.Unlock()

	requeue := true // if process panics
	defer func() {
		f.mu.Lock()
		f.finishLocked(i, requeue)
		f.mu.Unlock()
	}()
	err := process(key, deltas, initial)
	requeue = err != nil && errors.Is(err, ErrRequeue)
	return err
}

// Item is one key's share of a PopBatch.
type Item[T any] struct {
	// Key is the key of the object the deltas are about.
	Key string
	// Deltas are the key's changes, oldest first; never empty.
	Deltas Deltas[T]
	// InInitialList reports whether the deltas belong to the first Replace.
	InInitialList bool
}

// batch is a reusable PopBatch buffer.
type batch[T any] struct {
	items []Item[T]
	slots []int32 // slots[k] holds items[k]
}

// PopBatch is Pop for up to maxKeys keys at once, for consumers that apply
// many changes under one lock of their own. It waits until a key is ready
// and then takes, in order, as many ready keys as it can, up to maxKeys; it
// stops early where the first Replace's keys end, so that all items share
// InInitialList. It calls process once with the items and returns its
// error; if that error wraps ErrRequeue, every item's deltas are queued
// again as in Pop.
//
// The items slice and the deltas in it are reused after process returns;
// the same rules as for Pop apply. PopBatch returns an error if maxKeys < 1.
func (f *DeltaFIFO[T]) PopBatch(ctx context.Context, maxKeys int, process func(items []Item[T]) error) error {
	if maxKeys < 1 {
		return fmt.Errorf("deltafifo: batch size %d is not positive", maxKeys)
	}
	if f.zero() {
		return errZero
	}
	f.mu.Lock()
	if err := f.waitLocked(ctx); err != nil {
		f.mu.Unlock()
		return err
	}
	b := f.batchLocked()
	for len(b.items) < maxKeys && f.ready.Len() > 0 {
		next, _ := f.ready.Peek()
		s := f.slots.at(next)
		if len(b.items) > 0 && s.initial != b.items[0].InInitialList {
			break
		}
		i := f.takeLocked()
		b.items = append(b.items, Item[T]{Key: s.key, Deltas: s.deltas, InInitialList: s.initial})
		b.slots = append(b.slots, i)
	}
	f.mu.Unlock()

	requeue := true // if process panics
	defer func() {
		f.mu.Lock()
		for _, i := range b.slots {
			f.finishLocked(i, requeue)
		}
		clear(b.items)
		b.items, b.slots = b.items[:0], b.slots[:0]
		f.batches = append(f.batches, b)
		f.mu.Unlock()
	}()
	err := process(b.items)
	requeue = err != nil && errors.Is(err, ErrRequeue)
	return err
}

// batchLocked returns an empty batch buffer. Requires f.mu held.
func (f *DeltaFIFO[T]) batchLocked() *batch[T] {
	if n := len(f.batches); n > 0 {
		b := f.batches[n-1]
		f.batches[n-1] = nil
		f.batches = f.batches[:n-1]
		return b
	}
	return new(batch[T])
}

// takeLocked removes the next ready slot and marks it in flight. Requires
// f.mu held and a ready slot.
func (f *DeltaFIFO[T]) takeLocked() int32 {
	i, _ := f.ready.Pop()
	f.slots.at(i).state = slotInFlight
	f.inflight++
	return i
}

// finishLocked ends the processing of in-flight slot i. With requeue, its
// deltas are queued again, followed by those parked meanwhile. Otherwise
// they are dropped and the parked deltas, if any, become the key's queued
// slot. Requires f.mu held.
func (f *DeltaFIFO[T]) finishLocked(i int32, requeue bool) {
	f.inflight--
	s := f.slots.at(i)
	p := s.next
	s.next = 0
	if p != 0 {
		f.parked--
	}
	if requeue {
		if p != 0 {
			ps := f.slots.at(p)
			for _, d := range ps.deltas {
				s.deltas = appendDelta(s.deltas, d)
			}
			if ps.initial {
				if s.initial {
					f.initialLeft--
				}
				s.initial = true
			}
			f.slots.release(p, slotFree)
		}
		f.requeueLocked(i)
		return
	}

	if s.initial {
		s.initial = false
		f.initialLeft--
	}
	if p == 0 {
		f.slots.release(i, slotIdle)
		return
	}
	// The processor has seen a deletion; a deletion that arrived meanwhile
	// would delete the key a second time.
	ps := f.slots.at(p)
	if s.deltas[len(s.deltas)-1].Type == Deleted && ps.deltas[0].Type == Deleted {
		ps.deltas = dropFirst(ps.deltas)
	}
	if len(ps.deltas) == 0 {
		if ps.initial {
			f.initialLeft--
		}
		f.slots.release(p, slotFree)
		f.slots.release(i, slotIdle)
		return
	}
	// Slot i stays the key's primary slot: take over the parked deltas and
	// hand the old buffer to the parked slot, which is released.
	clear(s.deltas)
	s.deltas, ps.deltas = ps.deltas, s.deltas[:0]
	s.initial, ps.initial = ps.initial, false
	f.slots.release(p, slotFree)
	f.requeueLocked(i)
}

// requeueLocked puts in-flight slot i back at the end of the ready ring.
// Requires f.mu held.
func (f *DeltaFIFO[T]) requeueLocked(i int32) {
	f.slots.at(i).state = slotQueued
	f.readyLocked(i)
}

// dropFirst removes ds[0], clearing the freed element.
func dropFirst[T any](ds []Delta[T]) []Delta[T] {
	n := copy(ds, ds[1:])
	ds[n] = Delta[T]{}
	return ds[:n]
}
