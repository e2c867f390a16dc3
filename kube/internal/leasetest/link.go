package leasetest

import (
	"errors"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
)

// Link is one client's connection to a Store. While Down, every request
// fails before reaching the store; while Lossy, every request takes
// effect but its response is lost (the client sees an error); while
// Blind, lists fail and other requests work.
type Link struct {
	s                  *Store
	Down, Lossy, Blind atomic.Bool
	// slow, when positive, is the latency of the next request's response,
	// after which the link goes down.
	slow atomic.Int64
}

// NewLink returns a working Link to s.
func NewLink(s *Store) *Link { return &Link{s: s} }

// SlowThenDown makes the next request take effect and its response
// arrive d later (on the bubble's clock), and the link go down at once.
func (l *Link) SlowThenDown(d time.Duration) { l.slow.Store(int64(d)) }

// Heal makes every request work again.
func (l *Link) Heal() {
	l.Down.Store(false)
	l.Lossy.Store(false)
	l.Blind.Store(false)
	l.slow.Store(0)
}

// Client returns a Lease client for namespace "ns", client-go's fake,
// whose requests go through l to the store.
func (l *Link) Client() coordinationv1client.LeaseInterface {
	cs := fake.NewClientset()
	cs.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if l.Down.Load() || l.Blind.Load() && a.GetVerb() == "list" {
			return true, nil, errors.New("connection refused")
		}
		if d := time.Duration(l.slow.Swap(0)); d > 0 {
			l.Down.Store(true)
			obj, err := l.s.serve(a)
			time.Sleep(d)
			return true, obj, err
		}
		obj, err := l.s.serve(a)
		if l.Lossy.Load() {
			return true, nil, errors.New("connection reset")
		}
		return true, obj, err
	})
	return cs.CoordinationV1().Leases("ns")
}
