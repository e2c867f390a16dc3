package source

import (
	"context"
	"sync"
)

// watchBuffer is the buffer of a watch's event channel on both sides, the
// size of a client-go FakeWatcher built with NewFakeWithChanSize(100, ...).
const watchBuffer = 100

// pipe is the channel of one watch. Send may run concurrently with stop:
// stop first releases blocked senders, then closes the channel once no
// sender is inside.
type pipe[E any] struct {
	events chan E
	done   chan struct{}
	once   sync.Once
	mu     sync.RWMutex // held shared by senders, exclusively to close events
	closed bool
}

func newPipe[E any]() *pipe[E] {
	return &pipe[E]{events: make(chan E, watchBuffer), done: make(chan struct{})}
}

// send delivers ev, blocking while the buffer is full. It reports false if
// the watch was stopped or ctx ended first.
func (p *pipe[E]) send(ctx context.Context, ev E) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	select {
	case p.events <- ev:
		return true
	case <-p.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// stop ends the watch; it is idempotent.
func (p *pipe[E]) stop() {
	p.once.Do(func() {
		close(p.done)
		p.mu.Lock()
		p.closed = true
		close(p.events)
		p.mu.Unlock()
	})
}

// current tracks the newest watch of a source, so that benchmarks can wait
// for the consumer to open it and then send into it.
type current[E any] struct {
	mu     sync.Mutex
	pipe   *pipe[E]
	opened chan struct{} // closed when pipe is set; replaced after each open
}

func (c *current[E]) init() {
	c.opened = make(chan struct{})
}

// open makes a new watch the current one.
func (c *current[E]) open() *pipe[E] {
	p := newPipe[E]()
	c.mu.Lock()
	c.pipe = p
	close(c.opened)
	c.opened = make(chan struct{})
	c.mu.Unlock()
	return p
}

// wait returns the current watch, waiting for the first one to open.
func (c *current[E]) wait(ctx context.Context) (*pipe[E], error) {
	for {
		c.mu.Lock()
		p, opened := c.pipe, c.opened
		c.mu.Unlock()
		if p != nil {
			return p, nil
		}
		select {
		case <-opened:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// forget makes p, if it is still the current watch, no longer current:
// later waits wait for the next open.
func (c *current[E]) forget(p *pipe[E]) {
	c.mu.Lock()
	if c.pipe == p {
		c.pipe = nil
	}
	c.mu.Unlock()
}

// stopAll stops the current watch, if any.
func (c *current[E]) stopAll() {
	c.mu.Lock()
	p := c.pipe
	c.mu.Unlock()
	if p != nil {
		p.stop()
	}
}
