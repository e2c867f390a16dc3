package fanout

import "github.com/typedcache/typedcache/internal/ring"

// coalescer holds the notifications of a full Coalesce buffer: at most one
// per key, in the order each key first overflowed. A notification for a
// key already held is merged into the held one, so the memory it uses is
// bounded by the number of distinct keys, not by the number of events.
//
// A coalescer is not safe for simultaneous use; its listener's mutex
// guards it. The zero value is empty and ready to use.
type coalescer[T any] struct {
	order   ring.Ring[string]
	pending map[string]Notification[T]
	// held counts the entries of pending that still stand for a handler
	// call; an entry whose notifications cancelled out stays in pending
	// (Kind zero) so that order never holds a key twice.
	held int
}

// Len returns the number of notifications held.
func (c *coalescer[T]) Len() int { return c.held }

// push adds n, merging it with the notification held for its key. It
// reports whether n was merged rather than added, and how many initial-list
// adds were absorbed without being delivered as adds (0 or 1).
func (c *coalescer[T]) push(n Notification[T]) (merged bool, droppedInitial int) {
	if c.pending == nil {
		c.pending = make(map[string]Notification[T])
	}
	held, ok := c.pending[n.Key]
	switch {
	case !ok:
		c.order.Push(n.Key)
		c.pending[n.Key] = n
		c.held++
		return false, 0
	case held.Kind == 0:
		// The key's slot is in order already; reuse it.
		c.pending[n.Key] = n
		c.held++
		return false, 0
	}
	m, keep, dropped := merge(held, n)
	if !keep {
		c.held--
	}
	c.pending[n.Key] = m
	if dropped {
		droppedInitial = 1
	}
	return true, droppedInitial
}

// pop removes and returns the oldest held notification. It reports false
// when none is held.
func (c *coalescer[T]) pop() (Notification[T], bool) {
	for {
		key, ok := c.order.Pop()
		if !ok {
			return Notification[T]{}, false
		}
		n := c.pending[key]
		delete(c.pending, key)
		if n.Kind != 0 {
			c.held--
			return n, true
		}
	}
}

// clear drops every held notification.
func (c *coalescer[T]) clear() {
	c.order.Clear()
	clear(c.pending)
	c.held = 0
}
