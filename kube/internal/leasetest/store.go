// Package leasetest is an in-memory API server for coordination.k8s.io/v1
// Leases, reached through client-go's typed fake client, for the tests of
// kube/leader and kube/shard. Unlike the fake clientset's tracker it is
// linearizable and checks what those packages rely on: updates
// conditional on the resource version, deletes on their preconditions,
// lists filtered by label. Each client reaches it through a Link the test
// can break.
package leasetest

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

var leaseGR = coordinationv1.Resource("leases")

// Store is the Leases of one namespace. Its methods are safe for
// simultaneous use by multiple goroutines.
type Store struct {
	mu     sync.Mutex
	leases map[string]*coordinationv1.Lease
	rv     int
	writes []write
}

// write is one creation or update, with the holder it named and the
// (bubble) time it took effect.
type write struct {
	name, holder string
	at           time.Time
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{leases: map[string]*coordinationv1.Lease{}} }

// serve carries out one request, as the API server would.
func (s *Store) serve(a k8stesting.Action) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch a.GetVerb() {
	case "get":
		name := a.(k8stesting.GetAction).GetName()
		if l, ok := s.leases[name]; ok {
			return l.DeepCopy(), nil
		}
		return nil, apierrors.NewNotFound(leaseGR, name)
	case "list":
		sel := a.(k8stesting.ListAction).GetListRestrictions().Labels
		out := &coordinationv1.LeaseList{}
		for _, name := range slices.Sorted(maps.Keys(s.leases)) {
			if l := s.leases[name]; sel == nil || sel.Matches(labels.Set(l.Labels)) {
				out.Items = append(out.Items, *l.DeepCopy())
			}
		}
		out.ResourceVersion = strconv.Itoa(s.rv)
		return out, nil
	case "create":
		l := a.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		if _, ok := s.leases[l.Name]; ok {
			return nil, apierrors.NewAlreadyExists(leaseGR, l.Name)
		}
		l.UID = types.UID("uid-" + strconv.Itoa(s.rv+1))
		return s.putLocked(l), nil
	case "update":
		l := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		cur, ok := s.leases[l.Name]
		switch {
		case !ok:
			return nil, apierrors.NewNotFound(leaseGR, l.Name)
		case l.ResourceVersion != cur.ResourceVersion:
			return nil, apierrors.NewConflict(leaseGR, l.Name, errors.New("the object has been modified"))
		}
		l.UID = cur.UID
		return s.putLocked(l), nil
	case "delete":
		d := a.(k8stesting.DeleteAction)
		cur, ok := s.leases[d.GetName()]
		if !ok {
			return nil, apierrors.NewNotFound(leaseGR, d.GetName())
		}
		if p := d.GetDeleteOptions().Preconditions; p != nil &&
			(p.ResourceVersion != nil && *p.ResourceVersion != cur.ResourceVersion || p.UID != nil && *p.UID != cur.UID) {
			return nil, apierrors.NewConflict(leaseGR, d.GetName(), errors.New("precondition failed"))
		}
		delete(s.leases, d.GetName())
		return nil, nil
	}
	return nil, errors.New("leasetest: unsupported action " + a.GetVerb())
}

// putLocked stores l at the next resource version and records the write.
func (s *Store) putLocked(l *coordinationv1.Lease) *coordinationv1.Lease {
	s.rv++
	l.ResourceVersion = strconv.Itoa(s.rv)
	s.leases[l.Name] = l
	s.writes = append(s.writes, write{l.Name, holderOf(l), time.Now()})
	return l.DeepCopy()
}

// Set writes the Lease called name as another party would, naming holder.
func (s *Store) Set(name, holder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leases[name].DeepCopy()
	l.Spec.HolderIdentity = &holder
	s.putLocked(l)
}

// Holder returns the identity the Lease called name names ("" when it
// names none or does not exist).
func (s *Store) Holder(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases[name]; ok {
		return holderOf(l)
	}
	return ""
}

// Names returns the names of the stored Leases, sorted.
func (s *Store) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.leases))
}

// LastWrite returns the time of the last write of the Lease called name
// naming holder, or the zero time.
func (s *Store) LastWrite(name, holder string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range slices.Backward(s.writes) {
		if w.name == name && w.holder == holder {
			return w.at
		}
	}
	return time.Time{}
}

// Count returns the number of writes of the Lease called name naming
// holder.
func (s *Store) Count(name, holder string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range s.writes {
		if w.name == name && w.holder == holder {
			n++
		}
	}
	return n
}

func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
