package fanout_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/typedcache/typedcache/internal/fanout"
)

// receiver records the notifications delivered to it, as strings. Each
// delivery first waits until the gate is open.
type receiver struct {
	gate     chan struct{}
	openOnce sync.Once

	mu     sync.Mutex
	got    []string
	panics []fanout.Panic
}

// newReceiver returns a receiver whose gate is open if open is set.
func newReceiver(open bool) *receiver {
	r := &receiver{gate: make(chan struct{})}
	if open {
		r.open()
	}
	return r
}

// open lets every waiting and later delivery through.
func (r *receiver) open() { r.openOnce.Do(func() { close(r.gate) }) }

// deliver is the listener's delivery function.
func (r *receiver) deliver(n *fanout.Notification[int]) {
	<-r.gate
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, format(n))
}

// report is the listener's panic report.
func (r *receiver) report(p fanout.Panic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.panics = append(r.panics, p)
}

// take returns and forgets what was delivered so far.
func (r *receiver) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

// format describes n in one line.
func format(n *fanout.Notification[int]) string {
	switch n.Kind {
	case fanout.Add:
		return fmt.Sprintf("add %s %d", n.Key, n.Obj)
	case fanout.Update:
		return fmt.Sprintf("update %s %d->%d", n.Key, n.Old, n.Obj)
	case fanout.Delete:
		return fmt.Sprintf("delete %s %d (known %d)", n.Key, n.Obj, n.Old)
	}
	return fmt.Sprintf("kind %d %s", n.Kind, n.Key)
}

func add(key string, v int) fanout.Notification[int] {
	return fanout.Notification[int]{Key: key, Obj: v, Kind: fanout.Add}
}

func initialAdd(key string, v int) fanout.Notification[int] {
	return fanout.Notification[int]{Key: key, Obj: v, Kind: fanout.Add, Initial: true}
}

func update(key string, old, v int) fanout.Notification[int] {
	return fanout.Notification[int]{Key: key, Old: old, Obj: v, Kind: fanout.Update}
}

func resync(key string, v int) fanout.Notification[int] {
	return fanout.Notification[int]{Key: key, Old: v, Obj: v, Kind: fanout.Update, Resync: true}
}

func del(key string, v int) fanout.Notification[int] {
	return fanout.Notification[int]{Key: key, Old: v, Obj: v, Kind: fanout.Delete}
}

// start returns a listener delivering to r, running until the test ends;
// the test's cleanup stops it, opens r's gate and waits for Run to return.
func start(t *testing.T, r *receiver, opts fanout.Options) *fanout.Listener[int] {
	t.Helper()
	l := fanout.NewListener(r.deliver, r.report, opts)
	var wg sync.WaitGroup
	wg.Go(l.Run)
	t.Cleanup(func() {
		l.Stop()
		r.open()
		wg.Wait()
	})
	return l
}

// pushAsync pushes ns from a new goroutine and returns a channel closed
// when the push returns.
func pushAsync(l *fanout.Listener[int], ns ...fanout.Notification[int]) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Push(ns)
	}()
	return done
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
