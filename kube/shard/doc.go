// Package shard spreads the keys of a controller's work queue over
// several live replicas: every key is processed by exactly one live
// replica, never by two at the same time, and the keys of a replica that
// dies or leaves go to the others. Membership is one
// coordination.k8s.io/v1 Lease per replica, renewed as kube/leader renews
// its Lease; keys are assigned by rendezvous (highest random weight)
// hashing over the live members, so that a member coming or going moves
// only the keys it gains or had.
//
//	sh, err := shard.New(cs.CoordinationV1().Leases(ns), "my-controller", podName, shard.Options{})
//	m := controller.NewManager(factory, controller.ManagerOptions{Elector: sh})
//	err = m.Add(myController) // a *controller.Controller
//	err = m.Run(ctx)
//
// Every replica runs its informers over all the objects, as without
// sharding; the reconcile function does not change.
//
// A Shard is a controller.Sharder: set as ManagerOptions.Elector, it
// makes a controller.Manager run its controllers on every replica at
// once, keeps the membership while they run, and gives each controller a
// gate ([Shard.Gate], a *Work[string] over the controller's key names)
// that its workers ask before each reconcile, so that each processes only
// the keys of this member's shard. Keys are named by the cache keys of
// their primary objects, and the keys this member gains are walked from
// the controller's primary informer's cache.
//
// A bare work queue is sharded the same way with NewWork, its workers
// wrapping the reconcile function with [Work.Process]:
//
//	work, err := shard.NewWork(sh, q, keyString, pods.Cache().Keys())
//	err = sh.Run(ctx, func(ctx context.Context) error {
//		return q.Run(ctx, work.Process(reconcile), queue.RunOptions[K]{Workers: 2})
//	})
//
// # Semantics
//
// Ownership. A member owns key k under a set of members S when the
// rendezvous hash of k picks it among S. Each member publishes, in an
// annotation of its own Lease (AckAnnotation), the set it has adopted,
// its ack, which means: "I start work only on keys I own under this set,
// and no work of mine runs on a key I do not own under it".
//
// Views. Every RetryPeriod a member writes its Lease (which renews it),
// then reads all the group's Leases with a list without resource version,
// a quorum read. The live members it finds (itself included) are its
// target set. When the target changes, the member stops starting keys it
// does not own under the new target, waits for its running work on them
// to end, and then writes the target as its new ack.
//
// Starting work. A member R starts work on key k only when all of these
// hold, checked under a lock together with the record that the work runs:
// R is within a term (below); R owns k under its target and under its own
// ack; and R owns k under the ack of every other member that was live in
// the last list, a list sent after R's own ack was written. A key that
// fails the first two tests belongs to another member and is dropped; one
// that fails only the last waits (it is parked, and queued again when the
// acks change).
//
// Terms and fencing. A member may start or run work only within a term:
// a term begins with a successful write of its Lease and ends
// RenewDeadline after the send time of the last successful write, on the
// member's monotonic clock, when a timer of its own cancels the contexts
// of all running work (cause ErrFenced). Another member declares it dead
// only after seeing the same version of its Lease for a lease duration
// (the longer of its own LeaseDuration and the Lease's
// leaseDurationSeconds) from the arrival of the list that first showed
// it, and then deletes the Lease with a precondition on that version; a
// dead member's ack no longer counts once its Lease is gone. A member
// whose write finds its Lease deleted starts nothing until all its work
// has ended and it has created its Lease again, as a new member. A member
// renews its Lease only within a renew deadline of its last successful
// list: one that cannot read the group cannot acknowledge joiners, so it
// lets its Lease expire rather than hold the keys they wait for.
//
// No key is processed by two members at the same time. Suppose R and J
// both run work on k at some instant, R having started under its ack A_R
// (owner of k: R) written at w_R and a list L_R sent after w_R, and J
// likewise under A_J, w_J and L_J. Writes and quorum reads are
// linearizable, so L_R came after w_J or L_J came after w_R (if L_R
// preceded w_J, then w_R < L_R < w_J < L_J); say L_J came after w_R. From
// w_R until R's work on k ends, every ack R writes names R as k's owner:
// R writes an ack that gives k away only once its work on k has ended,
// and after a write whose outcome it does not know, it starts only keys
// it owns under that ack too. So L_J showed R's Lease either with an ack
// naming R, and J did not start k; or with an ack R wrote after its work
// on k had ended; or not at all. R deletes its own Lease only once its
// work has ended; another member deletes it only after seeing one version
// of it unchanged for a lease duration, with a precondition on that
// version, so R wrote nothing after it. R sent that write before the
// observer first saw it, so R's term ended RenewDeadline after the send,
// at least LeaseDuration-RenewDeadline before the deletion, and R's work
// had to return within that margin. In every case R's work on k ended
// before J's began. The argument covers a member that just joined and is
// unknown to the others (they have not acked a set with it, so it owns
// nothing under their acks), a member that flaps (each lost write ends
// its term at its deadline; a member found deleted rejoins as new),
// changes in quick succession (an ack is written only when no work runs
// on keys it gives away), and a partitioned member (its term ends at its
// deadline, before the others can delete its Lease).
//
// The promise therefore assumes what kube/leader assumes: clocks that run
// at nearly the same rate (the margin LeaseDuration-RenewDeadline covers
// their drift over a lease duration), work that returns within that
// margin once its context ends, and identities unique among live members.
// Work is anything the reconcile function does; what it set in motion
// elsewhere (an update request already sent) is not fenced.
//
// Every key is processed by a live member. Keys a member gains when the
// target changes are queued from the iterator given to NewWork (for a
// controller, its primary informer's cache), and keys
// it parked are queued again when the acks change. A key is held up while
// a member that owned it under an older set still has work on it, and
// until every live member has acked a set under which it moves. Timings:
//
//   - a member leaves (Run returns, its Lease deleted): its keys are taken
//     within about two retry periods;
//   - a member dies: its keys are taken a lease duration after the others
//     last saw its Lease change, plus up to three retry periods (its last
//     renewal may be a retry period old, noticing the expiry and
//     exchanging acks take one each);
//   - a member joins: the keys it owns move to it once the running work on
//     them ended, plus up to about three retry periods;
//   - one member's slow work holds up the handoff of every key that moves
//     in that change, not only its own: its ack is written only when its
//     work on the keys it gives away has ended.
//
// Keys of objects deleted while their owner changed are not carried over:
// the iterator only has the keys that exist. Controllers that must clean
// up after deleted objects should use finalizers, so that the object
// stays until its owner processed the deletion.
//
// # Cost and scale
//
// Each member makes two requests per retry period (its renewal and the
// list of the group's few Leases), plus one delete per dead member. The
// check before each key is one hash per member for each distinct ack. What
// sharding divides is the work: reconciles run on one member each, so with
// a reconcile that waits on I/O, throughput grows with the number of
// members until the API server or a shared dependency is the limit. What
// it does not divide: every member still watches and caches every object
// (the API server sends each event to each member's watch, and each
// member's memory holds the whole cache) unless the informers are
// filtered by a label selector that splits the objects, in which case the
// assignment must follow the same split.
//
// As a model: with W workers per member and a reconcile that waits L and
// computes C, N members reconcile up to N·W/L keys per second, as long as
// each member's CPUs keep up (W·C/L of a CPU each) and the API server and
// the dependencies serve N times the requests; the watch traffic the API
// server sends, and the memory of the caches, grow as N times one
// replica's. The report's real-server section (bench/RESULTS.md) gives
// the measured reconciles per second of 1, 2 and 3 members.
//
// # Concurrency
//
// A Shard and its Works are safe for simultaneous use by multiple
// goroutines; only one Run of a Shard may be in progress at a time
// (another returns ErrRunning). Run runs one goroutine for the membership
// loop and returns after fn has returned and the loop has stopped. The
// Works' methods that queue keys (and a controller's ShardKeys.Add) are
// called from that loop, never under a lock; the iterator given to
// NewWork (a controller's ShardKeys.All) runs there too, and delays the
// next renewal while it runs, so it should only walk a cache.
//
// # Differences from client-go
//
// client-go has no sharding, and controller-runtime elects one active
// replica. Sharding by label (a label on each object names its shard, as
// some projects do) needs a component that writes the labels and moves
// them when replicas come and go; here the assignment is computed from
// the keys and the membership alone, and no object is written.
package shard
