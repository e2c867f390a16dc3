package fanout

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The listener's buffer is checked against a deliberately naive model: a
// map that is the cache, updated by every change, and a list of the
// notifications in the order they were pushed. The listener is driven
// synchronously (take and deliverChunk, no goroutine), so the fuzzer
// chooses when the handler catches up.

// viewHandler applies notifications to a map, recording inconsistencies.
type viewHandler struct {
	view     map[string]int
	got      []string
	problems []string
}

// deliver is the listener's delivery function.
func (h *viewHandler) deliver(n *Notification[int]) {
	switch n.Kind {
	case Add:
		h.got = append(h.got, fmt.Sprintf("add %d", n.Obj))
		k := keyOf(n.Obj)
		if _, ok := h.view[k]; ok {
			h.problems = append(h.problems, "add of present "+k)
		}
		h.view[k] = n.Obj
	case Update:
		h.got = append(h.got, fmt.Sprintf("update %d %d", n.Old, n.Obj))
		k := keyOf(n.Obj)
		if cur, ok := h.view[k]; !ok || cur != n.Old {
			h.problems = append(h.problems, fmt.Sprintf("update of %s from %d, view has %d (present %t)", k, n.Old, cur, ok))
		}
		h.view[k] = n.Obj
	case Delete:
		h.got = append(h.got, fmt.Sprintf("delete %s %d", n.Key, n.Obj))
		if _, ok := h.view[n.Key]; !ok {
			h.problems = append(h.problems, "delete of absent "+n.Key)
		}
		delete(h.view, n.Key)
	}
}

// Values encode their key: value v belongs to key v%8.
func keyOf(v int) string { return fmt.Sprint(v % 8) }

func FuzzListenerBuffer(f *testing.F) {
	f.Add(byte(0), byte(1), []byte{0, 4, 8, 2, 1, 5, 2, 3, 2})
	f.Add(byte(1), byte(2), []byte{0, 4, 8, 12, 16, 20, 2, 1, 1, 2, 3, 2})
	f.Add(byte(1), byte(1), []byte{3, 0, 1, 0, 1, 0, 2, 2, 2})
	f.Fuzz(func(t *testing.T, policy, size byte, ops []byte) {
		opts := Options{Overflow: Coalesce}
		if policy%2 == 0 {
			opts.Limit = 0 // unbounded: Block would block the fuzzer
		} else {
			opts.Limit = int(size%4) + 1
		}
		h := &viewHandler{view: map[string]int{}}
		l := NewListener(h.deliver, failOnPanic(t), opts)

		cache := map[string]int{}
		var pushed []string
		next := 0 // values grow, so that every state is distinct
		initialPhase := true
		var chunk queue[int]
		for _, op := range ops {
			key := int(op>>2) % 8
			switch op % 4 {
			case 0, 1: // a change of the key in the cache
				next += 8
				v := next + key
				k := keyOf(v)
				var n Notification[int]
				old, present := cache[k]
				switch {
				case !present:
					n = Notification[int]{Key: k, Obj: v, Kind: Add, Initial: initialPhase}
					cache[k] = v
					pushed = append(pushed, fmt.Sprintf("add %d", v))
				case op%4 == 0:
					n = Notification[int]{Key: k, Old: old, Obj: v, Kind: Update}
					cache[k] = v
					pushed = append(pushed, fmt.Sprintf("update %d %d", old, v))
				default:
					n = Notification[int]{Key: k, Old: old, Obj: old, Kind: Delete}
					delete(cache, k)
					pushed = append(pushed, fmt.Sprintf("delete %s %d", k, old))
				}
				l.Push([]Notification[int]{n})
			case 2: // the handler takes what is pending and handles it
				l.mu.Lock()
				pending := l.buf.len + l.over.Len()
				l.mu.Unlock()
				if pending > 0 && l.take(&chunk) {
					l.finishInitial(l.deliverChunk(&chunk))
				}
			case 3: // the initial list ends
				initialPhase = false
				l.MarkUpstreamSynced()
			}
			if s := l.Stats(); opts.Limit > 0 && s.Pending > opts.Limit+8 {
				t.Fatalf("Pending = %d with Limit %d and 8 keys", s.Pending, opts.Limit)
			}
		}
		l.MarkUpstreamSynced()
		for l.Stats().Pending > 0 {
			if !l.take(&chunk) {
				t.Fatal("take() = false on a running listener")
			}
			l.finishInitial(l.deliverChunk(&chunk))
		}

		if len(h.problems) > 0 {
			t.Fatalf("inconsistent notifications: %q\npushed: %q\ngot: %q", h.problems, pushed, h.got)
		}
		if diff := cmp.Diff(cache, h.view); diff != "" {
			t.Fatalf("handler view mismatch (-cache +view):\n%s\npushed: %q\ngot: %q", diff, pushed, h.got)
		}
		if opts.Limit == 0 {
			if diff := cmp.Diff(pushed, h.got); diff != "" {
				t.Fatalf("unbounded buffer changed the notifications (-pushed +got):\n%s", diff)
			}
		}
		select {
		case <-l.synced:
		default:
			t.Fatalf("not synced after every notification was delivered (initialPending %d)", l.initialPending)
		}
		s := l.Stats()
		// Each merge absorbs one notification, or two that cancel out.
		if s.Delivered != uint64(len(h.got)) || s.Delivered+2*s.Coalesced < uint64(len(pushed)) || s.Delivered > uint64(len(pushed)) {
			t.Fatalf("Stats() = %+v for %d pushed, %d delivered", s, len(pushed), len(h.got))
		}
	})
}
