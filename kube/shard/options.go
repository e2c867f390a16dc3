package shard

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

// Options configures a Shard. The zero value means the defaults, those of
// kube/leader (leader.DefaultLeaseDuration and so on): a 15 s lease, a
// 10 s renew deadline, a 2 s retry period, and the member's Lease deleted
// when Run returns.
type Options struct {
	// LeaseDuration is how long the other members wait, after they last
	// saw this member's Lease change, before they delete it and take its
	// keys. It is written to the Lease rounded up to whole seconds. The
	// default is 15 s.
	LeaseDuration time.Duration
	// RenewDeadline is how long this member may start and run work after
	// it sent its last successful renewal: then the contexts of its
	// running work are cancelled and it starts nothing until it renews
	// again. It must be shorter than LeaseDuration; the difference is the
	// time running work has to return. The default is 10 s.
	RenewDeadline time.Duration
	// RetryPeriod is the time between two renewals of this member's Lease,
	// each followed by a read of the group's Leases. It must be shorter
	// than RenewDeadline. The default is 2 s.
	RetryPeriod time.Duration
	// KeepLease leaves this member's Lease to expire when Run returns, as
	// if the process had crashed. By default Run deletes it once no work
	// runs, so that the others take its keys within about a retry period
	// instead of a lease duration.
	KeepLease bool
}

// New returns a Shard: the membership of the replica identity in the
// group of replicas called group, through Leases in the namespace of
// leases (clientset.CoordinationV1().Leases(namespace)). Its Lease is
// named group-identity and labelled with the group. The identity must be
// unique among the live replicas (a pod name): a replica that finds a
// Lease of its own identity takes it as its own. New returns an error
// wrapping ErrInvalid for a nil client, a group that is not a label
// value, an identity or Lease name that is not a DNS subdomain, or timings
// that are not RetryPeriod < RenewDeadline < LeaseDuration.
func New(leases coordinationv1client.LeaseInterface, group, identity string, opts Options) (*Shard, error) {
	name := group + "-" + identity
	switch {
	case leases == nil:
		return nil, fmt.Errorf("%w: nil Lease client", ErrInvalid)
	case group == "" || len(validation.IsValidLabelValue(group)) > 0:
		return nil, fmt.Errorf("%w: group %q is not a non-empty label value", ErrInvalid, group)
	case identity == "" || len(validation.IsDNS1123Subdomain(identity)) > 0:
		return nil, fmt.Errorf("%w: identity %q is not a DNS subdomain", ErrInvalid, identity)
	case len(validation.IsDNS1123Subdomain(name)) > 0:
		return nil, fmt.Errorf("%w: Lease name %q is not a DNS subdomain: %s", ErrInvalid, name, validation.IsDNS1123Subdomain(name)[0])
	}
	t, err := lease.Timings{LeaseDuration: opts.LeaseDuration, RenewDeadline: opts.RenewDeadline, RetryPeriod: opts.RetryPeriod}.WithDefaults(ErrInvalid)
	if err != nil {
		return nil, err
	}
	return &Shard{
		leases:   leases,
		group:    group,
		identity: identity,
		name:     name,
		timings:  t,
		keep:     opts.KeepLease,
		wake:     make(chan struct{}, 1),
		inflight: map[string]int{},
	}, nil
}
