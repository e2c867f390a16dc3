package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedcache/typedcache/kube/leader"
)

// Short timings, so that the leader election tests take seconds.
var leaderOpts = leader.Options{
	LeaseDuration: 2 * time.Second,
	RenewDeadline: 1500 * time.Millisecond,
	RetryPeriod:   250 * time.Millisecond,
}

// leaderTerm is a period of leadership as the candidate recorded it, on
// this machine's clock: from the call of its function to the end of the
// function's context.
type leaderTerm struct {
	id         string
	start, end time.Time // end is zero while leading
}

// elected is one candidate running leader.Elector.Run on its own
// goroutine, over a client whose transport the test can cut.
type elected struct {
	id     string
	mode   atomic.Int32 // one of linkUp, linkRefused, linkHung
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned err
	err    error

	mu    sync.Mutex
	terms []leaderTerm
}

// Transport states of a candidate's client.
const (
	linkUp      = iota
	linkRefused // every request fails at once
	linkHung    // every request hangs until its context ends
)

// candidates is a set of candidates for one Lease.
type candidates struct {
	p   *progress
	all []*elected
}

// startCandidates starts n candidates for a Lease in ns, and stops them
// when the test ends.
func startCandidates(t *testing.T, c *cluster, ns string, n int, opts leader.Options) *candidates {
	t.Helper()
	cs := &candidates{p: newProgress()}
	for i := range n {
		e := &elected{id: fmt.Sprintf("candidate-%d", i), done: make(chan struct{})}
		client := c.client(t, nil, func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				switch e.mode.Load() {
				case linkRefused:
					return nil, errors.New("cut off from the server")
				case linkHung:
					<-r.Context().Done()
					return nil, r.Context().Err()
				}
				return rt.RoundTrip(r)
			})
		})
		el, err := leader.New(client.CoordinationV1().Leases(ns), "leader-test", e.id, opts)
		if err != nil {
			t.Fatalf("leader.New: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		e.cancel = cancel
		go func() {
			defer close(e.done)
			e.err = el.Run(ctx, func(ctx context.Context) error {
				e.record(leaderTerm{id: e.id, start: time.Now()}, cs.p)
				<-ctx.Done()
				e.record(leaderTerm{end: time.Now()}, cs.p)
				return nil
			})
			cs.p.bump()
		}()
		t.Cleanup(func() { cancel(); <-e.done })
		cs.all = append(cs.all, e)
	}
	return cs
}

// wait waits for Run to return, and returns its result.
func (e *elected) wait() error {
	<-e.done
	return e.err
}

// record starts a term, or with a zero start ends the current one.
func (e *elected) record(tm leaderTerm, p *progress) {
	e.mu.Lock()
	if tm.start.IsZero() {
		e.terms[len(e.terms)-1].end = tm.end
	} else {
		e.terms = append(e.terms, tm)
	}
	e.mu.Unlock()
	p.bump()
}

// current returns the candidate's current term, if it leads.
func (e *elected) current() (leaderTerm, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.terms); n > 0 && e.terms[n-1].end.IsZero() {
		return e.terms[n-1], true
	}
	return leaderTerm{}, false
}

// last returns the candidate's last term.
func (e *elected) last() leaderTerm {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.terms[len(e.terms)-1]
}

// waitLeader waits until a candidate other than not leads, and returns
// it with its term.
func (cs *candidates) waitLeader(t *testing.T, not *elected) (*elected, leaderTerm) {
	t.Helper()
	var found *elected
	var tm leaderTerm
	waitUntil(t, cs.p, 30*time.Second, func() bool {
		for _, e := range cs.all {
			if cur, ok := e.current(); ok && e != not {
				found, tm = e, cur
				return true
			}
		}
		return false
	}, func() string { return "no new leader" })
	return found, tm
}

// checkNoOverlap fails the test if two terms overlap.
func (cs *candidates) checkNoOverlap(t *testing.T) {
	t.Helper()
	var all []leaderTerm
	for _, e := range cs.all {
		e.mu.Lock()
		all = append(all, e.terms...)
		e.mu.Unlock()
	}
	slices.SortFunc(all, func(a, b leaderTerm) int { return a.start.Compare(b.start) })
	for i := 1; i < len(all); i++ {
		if prev := all[i-1]; prev.end.IsZero() || prev.end.After(all[i].start) {
			t.Errorf("%s led from %s to %s, overlapping %s from %s", prev.id,
				prev.start.Format(time.StampMicro), prev.end.Format(time.StampMicro), all[i].id, all[i].start.Format(time.StampMicro))
		}
	}
}
