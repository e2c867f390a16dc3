package shard_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
)

// leaseStore is the Leases of one namespace as an API server keeps them:
// linearizable, every write conditional on the resource version it
// carries, deletes on their preconditions, lists filtered by label. (The
// fake clientset's tracker checks none of that.)
type leaseStore struct {
	mu     sync.Mutex
	leases map[string]*coordinationv1.Lease
	rv     int
}

func newLeaseStore() *leaseStore { return &leaseStore{leases: map[string]*coordinationv1.Lease{}} }

var leaseGR = coordinationv1.Resource("leases")

func (s *leaseStore) serve(a k8stesting.Action) (runtime.Object, error) {
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
		l := a.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease)
		if _, ok := s.leases[l.Name]; ok {
			return nil, apierrors.NewAlreadyExists(leaseGR, l.Name)
		}
		l = l.DeepCopy()
		l.UID = types.UID("uid-" + strconv.Itoa(s.rv+1))
		return s.putLocked(l), nil
	case "update":
		l := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		cur, ok := s.leases[l.Name]
		switch {
		case !ok:
			return nil, apierrors.NewNotFound(leaseGR, l.Name)
		case l.ResourceVersion != cur.ResourceVersion:
			return nil, apierrors.NewConflict(leaseGR, l.Name, errors.New("the object has been modified"))
		}
		l = l.DeepCopy()
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
	return nil, errors.New("leaseStore: unsupported action " + a.GetVerb())
}

func (s *leaseStore) putLocked(l *coordinationv1.Lease) *coordinationv1.Lease {
	s.rv++
	l.ResourceVersion = strconv.Itoa(s.rv)
	s.leases[l.Name] = l
	return l.DeepCopy()
}

// names returns the names of the stored Leases, sorted.
func (s *leaseStore) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.leases))
}

// link is one replica's connection to the store; while down, every
// request fails before reaching it; while lossy, every request takes
// effect but its response is lost (the client sees an error); while
// blind, lists fail and other requests work.
type link struct {
	s     *leaseStore
	down  atomic.Bool
	lossy atomic.Bool
	blind atomic.Bool
}

// heal makes every request work again.
func (l *link) heal() {
	l.down.Store(false)
	l.lossy.Store(false)
	l.blind.Store(false)
}

// client returns a Lease client, client-go's fake, whose requests go
// through l to the store.
func (l *link) client() coordinationv1client.LeaseInterface {
	cs := fake.NewClientset()
	cs.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if l.down.Load() || l.blind.Load() && a.GetVerb() == "list" {
			return true, nil, errors.New("connection refused")
		}
		obj, err := l.s.serve(a)
		if l.lossy.Load() {
			return true, nil, errors.New("connection reset")
		}
		return true, obj, err
	})
	return cs.CoordinationV1().Leases("ns")
}
