package shard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// list reads the group's Leases with a quorum read (no resource version),
// deletes those that have expired, and makes the rest this member's view:
// the target set and the snapshot of the others' acks. A failed list
// changes nothing.
func (m *member) list(ctx context.Context) {
	s := m.s
	s.mu.Lock()
	acked := s.acked
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.timings.RenewDeadline)
	defer cancel()
	sent := time.Now()
	ls, err := s.leases.List(ctx, metav1.ListOptions{LabelSelector: GroupLabel + "=" + s.group})
	if err != nil {
		return
	}
	m.listed = sent
	view := members{s.identity}
	var acks []members
	names := make(map[string]bool, len(ls.Items))
	for i := range ls.Items {
		l := &ls.Items[i]
		id := holder(l)
		if l.Name == s.name || id == "" {
			continue
		}
		names[l.Name] = true
		seen := m.seen[l.Name]
		if seen == nil {
			seen = &lease.Seen{}
			m.seen[l.Name] = seen
		}
		seen.Observe(l)
		if seen.Expired(l, s.timings.LeaseDuration) && m.remove(ctx, l) {
			continue
		}
		view = view.with(id)
		ack := parseMembers(l.Annotations[AckAnnotation])
		if !slices.ContainsFunc(acks, func(a members) bool { return slices.Equal(a, ack) }) {
			acks = append(acks, ack)
		}
	}
	for name := range m.seen {
		if !names[name] {
			delete(m.seen, name)
		}
	}

	s.mu.Lock()
	before := s.target
	changed := !slices.Equal(before, view)
	if changed {
		s.target = view
	}
	s.snap = &snapshot{acked: acked, acks: acks}
	works := slices.Clone(s.works)
	s.mu.Unlock()
	if changed {
		for _, w := range works {
			w.gained(before, view)
		}
	}
}

// remove deletes an expired Lease of another member, on the condition
// that it is still the version seen, and reports whether it is gone. Its
// holder stopped working at its renew deadline, before the Lease expired;
// if it renewed meanwhile, the delete fails and it stays a member.
func (m *member) remove(ctx context.Context, l *coordinationv1.Lease) bool {
	rv, uid := l.ResourceVersion, l.UID
	err := m.s.leases.Delete(ctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv, UID: &uid}})
	if err == nil || apierrors.IsNotFound(err) {
		delete(m.seen, l.Name)
		return true
	}
	return false
}

// announce tells the works to retry their parked keys when what decides
// whether a key may start changed since it last did: a term began, or an
// ack changed.
func (m *member) announce() {
	s := m.s
	s.mu.Lock()
	if s.term == nil || s.snap == nil || s.snap.acked != s.acked {
		s.mu.Unlock()
		return
	}
	// Every input of startableLocked but the term's end (which clears
	// s.term) and the snapshot's validity (checked above).
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%s|%s|%t:%s", s.terms, s.adopted, s.target, s.uncertain, s.pending)
	for _, a := range s.snap.acks {
		b.WriteString("|" + a.String())
	}
	state := b.String()
	works := slices.Clone(s.works)
	s.mu.Unlock()
	if state == m.announced {
		return
	}
	m.announced = state
	for _, w := range works {
		w.unpark()
	}
}

// holder returns the identity a Lease names, or "" when it names none.
func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
