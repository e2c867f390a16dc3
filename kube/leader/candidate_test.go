package leader_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/typedcache/typedcache/kube/internal/leasetest"
	"github.com/typedcache/typedcache/kube/leader"
)

// term is one period of leadership as the candidate itself recorded it:
// from the call of its function to the end of the function's context.
type term struct {
	id         string
	start, end time.Time // end is zero while leading
}

// candidate runs one Elector's Run on its own goroutine.
type candidate struct {
	id     string
	el     *leader.Elector
	link   *leasetest.Link
	cancel context.CancelFunc
	done   chan error // receives Run's result

	mu      sync.Mutex
	terms   []term
	started chan struct{} // closed when the first term starts
}

// startCandidate starts Run for id over its own link to s.
func startCandidate(t *testing.T, s *leasetest.Store, id string, opts leader.Options) *candidate {
	t.Helper()
	c := &candidate{id: id, link: leasetest.NewLink(s), done: make(chan error, 1), started: make(chan struct{})}
	el, err := leader.New(c.link.Client(), "lease", id, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.el = el
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go func() {
		c.done <- el.Run(ctx, func(ctx context.Context) error {
			c.mu.Lock()
			c.terms = append(c.terms, term{id: id, start: time.Now()})
			if len(c.terms) == 1 {
				close(c.started)
			}
			c.mu.Unlock()
			<-ctx.Done()
			c.mu.Lock()
			c.terms[len(c.terms)-1].end = time.Now()
			c.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-c.done })
	return c
}

// stop cancels Run's context and returns Run's result.
func (c *candidate) stop() error {
	c.cancel()
	err := <-c.done
	c.done <- err // for the cleanup
	return err
}

// result waits for Run to return on its own.
func (c *candidate) result() error {
	err := <-c.done
	c.done <- err
	return err
}

func (c *candidate) term() term {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.terms) == 0 {
		return term{}
	}
	return c.terms[0]
}

// leading reports whether c is in a term now.
func (c *candidate) leading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.terms) > 0 && c.terms[len(c.terms)-1].end.IsZero()
}

// checkNoOverlap fails the test if two candidates' terms overlap.
func checkNoOverlap(t *testing.T, cs ...*candidate) {
	t.Helper()
	var all []term
	for _, c := range cs {
		c.mu.Lock()
		all = append(all, c.terms...)
		c.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b term) int { return a.start.Compare(b.start) })
	for i := 1; i < len(all); i++ {
		if prev := all[i-1]; prev.end.IsZero() || prev.end.After(all[i].start) {
			t.Errorf("%s led from %v to %v, overlapping %s from %v", prev.id, prev.start, prev.end, all[i].id, all[i].start)
		}
	}
}
