package deltafifo

import "fmt"

// CheckInvariants verifies the internal structure of f: every key in the
// index names a queued or in-flight slot of that key, the ready ring holds
// exactly the queued slots, parked slots hang off in-flight ones, free
// slots hold nothing, and the counters agree with the slots.
func (f *DeltaFIFO[T]) CheckInvariants() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	inRing := make(map[int32]bool)
	for k := range f.ready.Len() {
		i := f.ready.At(k)
		if inRing[i] {
			return fmt.Errorf("slot %d twice in the ready ring", i)
		}
		inRing[i] = true
	}
	parkedBy := make(map[int32]int32)
	free, used, parked, initial := 0, 0, 0, 0
	for i := int32(1); i < f.slots.len(); i++ {
		s := f.slots.at(i)
		if s.state == slotFree {
			free++
			if s.key != "" || len(s.deltas) != 0 || s.initial || s.listed {
				return fmt.Errorf("free slot %d holds %q, %d deltas", i, s.key, len(s.deltas))
			}
			continue
		}
		used++
		if s.initial {
			initial++
		}
		if s.listed {
			return fmt.Errorf("slot %d still marked listed", i)
		}
		if len(s.deltas) == 0 {
			return fmt.Errorf("slot %d (%q, state %d) holds no deltas", i, s.key, s.state)
		}
		for k := 1; k < len(s.deltas); k++ {
			if s.deltas[k-1].Type == Deleted && s.deltas[k].Type == Deleted {
				return fmt.Errorf("slot %d (%q): consecutive deletions", i, s.key)
			}
		}
		if inRing[i] != (s.state == slotQueued) {
			return fmt.Errorf("slot %d (%q): state %d, in ring %v", i, s.key, s.state, inRing[i])
		}
		switch s.state {
		case slotParked:
			parked++
		case slotInFlight:
			if s.next != 0 {
				parkedBy[s.next] = i
			}
		}
		if s.state != slotParked {
			if j, ok := f.index[s.key]; !ok || j != i {
				return fmt.Errorf("slot %d (%q): index says %d, %v", i, s.key, j, ok)
			}
		} else if j := parkedBy[i]; j != 0 && f.slots.at(j).key != s.key {
			return fmt.Errorf("parked slot %d (%q) hangs off slot %d (%q)", i, s.key, j, f.slots.at(j).key)
		}
	}
	for i := int32(1); i < f.slots.len(); i++ {
		if f.slots.at(i).state == slotParked && parkedBy[i] == 0 {
			return fmt.Errorf("parked slot %d has no in-flight slot", i)
		}
	}
	if used != f.slots.used || used+free != int(f.slots.len())-1 {
		return fmt.Errorf("%d slots used, %d free, counter says %d used of %d", used, free, f.slots.used, f.slots.len()-1)
	}
	if parked != f.parked {
		return fmt.Errorf("%d parked slots, counter says %d", parked, f.parked)
	}
	if initial != f.initialLeft {
		return fmt.Errorf("%d initial slots, counter says %d", initial, f.initialLeft)
	}
	if len(f.index)+parked != used {
		return fmt.Errorf("%d keys indexed, %d parked, %d used slots", len(f.index), parked, used)
	}
	return nil
}
