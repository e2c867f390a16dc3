// Package lease holds what kube/leader and kube/shard share about
// renewing coordination.k8s.io/v1 Leases: the timings and their rules, the
// watchdog that ends a term at the renew deadline, and the local record of
// when a version of a Lease was first seen, from which expiry is judged.
//
// The safety argument both packages rest on: a holder measures its renew
// deadline on its local monotonic clock from the send time of its last
// successful write; an observer declares a Lease expired only after it has
// seen the same version for a lease duration on its own clock, from the
// arrival of the response that first showed it. The write was sent before
// the observer saw its result, so when the observer acts, the holder's
// deadline has passed by at least LeaseDuration-RenewDeadline (less the
// clocks' drift over that time).
package lease
