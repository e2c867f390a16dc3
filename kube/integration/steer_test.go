package integration

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedcache/typedcache/reflector"
)

// steered wraps the real source to steer the reflector's watches: it can
// shorten every watch's server-side timeout, and end the current watch
// and hold the next Watch call until the test releases it.
// Everything the reflector receives still comes from the server.
type steered struct {
	reflector.ListerWatcher[*corev1.ConfigMap]
	timeout time.Duration // if > 0, the timeout every watch asks the server for

	mu       sync.Mutex
	watches  int
	current  reflector.Watch[*corev1.ConfigMap]
	watching chan struct{} // closed when current is first set
	trap     *trap
}

func newSteered(lw reflector.ListerWatcher[*corev1.ConfigMap], timeout time.Duration) *steered {
	return &steered{ListerWatcher: lw, timeout: timeout, watching: make(chan struct{})}
}

// trap holds the next Watch call until released.
type trap struct {
	from    string        // the version the held call watches from; set before held is closed
	held    chan struct{} // closed when a Watch call is held
	release chan struct{} // closed by the test
}

func (s *steered) Watch(ctx context.Context, opts reflector.WatchOptions) (reflector.Watch[*corev1.ConfigMap], error) {
	s.mu.Lock()
	s.watches++
	tr := s.trap
	s.trap = nil
	s.mu.Unlock()
	if tr != nil {
		tr.from = opts.ResourceVersion
		close(tr.held)
		select {
		case <-tr.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.timeout > 0 {
		opts.Timeout = s.timeout
	}
	w, err := s.ListerWatcher.Watch(ctx, opts)
	if err == nil {
		s.mu.Lock()
		if s.current == nil {
			close(s.watching)
		}
		s.current = w
		s.mu.Unlock()
	}
	return w, err
}

// interrupt ends the current watch and sets a trap for the next one,
// which starts once the test closes the trap's release.
func (s *steered) interrupt() *trap {
	<-s.watching
	tr := &trap{held: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.trap = tr
	w := s.current
	s.mu.Unlock()
	if w != nil {
		w.Stop()
	}
	return tr
}

func (s *steered) watchCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watches
}
