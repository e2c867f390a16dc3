package leader_test

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
)

// store is one Lease as an API server keeps it: writes are conditional on
// the resource version (client-go's fake tracker does not check it), and
// every write is recorded with the holder it names and the (bubble) time
// it took effect.
type store struct {
	mu     sync.Mutex
	lease  *coordinationv1.Lease // nil: not created yet
	rv     int
	writes []write
}

type write struct {
	holder string
	at     time.Time
}

var leaseGR = coordinationv1.Resource("leases")

func (s *store) do(a k8stesting.Action) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch a.GetVerb() {
	case "get":
		if s.lease == nil {
			return nil, apierrors.NewNotFound(leaseGR, a.(k8stesting.GetAction).GetName())
		}
		return s.lease.DeepCopy(), nil
	case "create":
		l := a.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease)
		if s.lease != nil {
			return nil, apierrors.NewAlreadyExists(leaseGR, l.Name)
		}
		return s.storeLocked(l), nil
	case "update":
		l := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		switch {
		case s.lease == nil:
			return nil, apierrors.NewNotFound(leaseGR, l.Name)
		case l.ResourceVersion != s.lease.ResourceVersion:
			return nil, apierrors.NewConflict(leaseGR, l.Name, errors.New("the object has been modified"))
		}
		return s.storeLocked(l), nil
	}
	return nil, errors.New("store: unsupported action " + a.GetVerb())
}

func (s *store) storeLocked(l *coordinationv1.Lease) *coordinationv1.Lease {
	s.rv++
	l = l.DeepCopy()
	l.ResourceVersion = strconv.Itoa(s.rv)
	s.lease = l
	h := ""
	if l.Spec.HolderIdentity != nil {
		h = *l.Spec.HolderIdentity
	}
	s.writes = append(s.writes, write{h, time.Now()})
	return l.DeepCopy()
}

// set writes the Lease as another party would, naming holder.
func (s *store) set(holder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lease.DeepCopy()
	l.Spec.HolderIdentity = &holder
	s.storeLocked(l)
}

// holder returns the identity the Lease names ("" when free or absent).
func (s *store) holder() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lease == nil || s.lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *s.lease.Spec.HolderIdentity
}

// lastWrite returns the time of the last write naming holder.
func (s *store) lastWrite(holder string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.writes) - 1; i >= 0; i-- {
		if s.writes[i].holder == holder {
			return s.writes[i].at
		}
	}
	return time.Time{}
}

// count returns the number of writes naming holder.
func (s *store) count(holder string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		if w.holder == holder {
			n++
		}
	}
	return n
}

// Link states of a candidate's connection to the store.
const (
	linkUp       = iota
	linkDown     // every request fails before reaching the store
	linkSlowDown // the next request takes effect, its response arrives after slowLatency, and the link goes down
)

// slowLatency is longer than LeaseDuration-RenewDeadline (5 s), so that a
// leader measuring its deadline from a response's arrival would still
// lead when another candidate takes over, and shorter than
// RenewDeadline-RetryPeriod (8 s), so that the response arrives before
// the deadline of the renewal sent one retry period earlier.
const slowLatency = 7 * time.Second

// link is one candidate's connection to the store.
type link struct {
	s     *store
	state atomic.Int32
}

// client returns a Lease client, client-go's fake, whose requests go
// through l to the store.
func (l *link) client() coordinationv1client.LeaseInterface {
	cs := fake.NewClientset()
	cs.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch l.state.Load() {
		case linkDown:
			return true, nil, errors.New("connection refused")
		case linkSlowDown:
			l.state.Store(linkDown)
			obj, err := l.s.do(a)
			time.Sleep(slowLatency) // bubble time: the response is late
			return true, obj, err
		}
		obj, err := l.s.do(a)
		return true, obj, err
	})
	return cs.CoordinationV1().Leases("ns")
}
