// Package leader runs a function on one replica at a time: leader
// election on a coordination.k8s.io/v1 Lease, through client-go's typed
// client.
//
//	el, err := leader.New(cs.CoordinationV1().Leases(ns), "my-controller", podName, leader.Options{})
//	...
//	err = el.Run(ctx, func(ctx context.Context) error {
//		return runController(ctx) // until ctx ends
//	})
//
// Run campaigns until this candidate holds the Lease, calls the function
// with a context that ends when leadership ends, and returns once the
// function has returned.
//
// An Elector is a controller.Elector: set as ManagerOptions.Elector, it
// makes a controller.Manager run its controllers on the leader only, and
// its Leader method keeps the manager's /readyz failing until this
// replica knows whether it leads. kube.NewManager builds a manager with
// one from a Lease's name (kube.LeaderElection).
//
// # Semantics
//
// Never two leaders at once. Given clocks that run at nearly the same
// rate (no synchronised wall clocks are needed: the margin
// LeaseDuration-RenewDeadline must cover how far they drift apart over a
// lease duration, and the function's return), a leader stops leading
// before any other candidate can acquire the Lease:
//
//   - Every write of the Lease is conditional on the resource version the
//     writer read (optimistic concurrency), so of two candidates that saw
//     the same version, at most one succeeds.
//   - A candidate takes a Lease held by another only when it has seen the
//     same version of it for a lease duration (the longer of its own
//     LeaseDuration and the Lease's leaseDurationSeconds), measured on its
//     local monotonic clock from the moment that version first arrived.
//     The times written in the Lease are informational and never compared.
//   - The leader measures its renew deadline on its local monotonic clock
//     from the moment it sent its last successful write, not from when
//     the response arrived, so a slow response cannot extend leadership.
//     That write reached the server after it was sent, and every other
//     candidate saw it later still; so when the deadline passes, at most
//     RenewDeadline after the send, at least LeaseDuration-RenewDeadline
//     remains before anyone can take over. A timer of its own, not the
//     renewal requests, ends leadership: the function's context is
//     cancelled at the deadline even if a request hangs.
//
// The function must return within LeaseDuration-RenewDeadline (5 s with
// the defaults) of its context's end for the promise to cover everything
// it does: Run waits for it, but cannot stop it.
//
// Renewal. The leader renews the Lease every RetryPeriod; a failed
// renewal is retried every RetryPeriod until the deadline. A leader that
// finds the Lease held by another candidate stops at once.
//
// Release. When Run stops leading because its context ended or the
// function returned, it releases the Lease after the function has
// returned: it clears the holder, with a write conditional on the version
// it last wrote, so the release can never clear another candidate's
// Lease. Another candidate then takes over within one RetryPeriod instead
// of one LeaseDuration. It is on by default because it is safe (the
// replica has stopped leading before it releases) and makes rolling
// updates hand over at once; Options.KeepLease turns it off. After a loss
// Run leaves the Lease alone.
//
// Identities. Each candidate needs an identity unique among the live
// candidates. A candidate that finds its own identity in the Lease (a
// restarted process with the same name) renews it at once.
//
// # Concurrency
//
// An Elector is safe for simultaneous use by multiple goroutines, but Run
// returns ErrRunning while another Run of the same Elector is in
// progress; call Run again after it returned to campaign again. Run
// starts two goroutines while leading, one for the function and one timer
// for the deadline, and returns only after the function has returned.
//
// # Differences from client-go
//
//   - client-go's leaderelection calls OnStartedLeading on a goroutine of
//     its own and OnStoppedLeading without waiting for it; Run waits for
//     the function, so "Run returned" means "no longer acting as leader".
//   - client-go measures its renew deadline from the start of a renew
//     cycle, a retry period after the previous renewal's response, and
//     ends leadership when the cycle's polling gives up;
//     here the deadline counts from the send time of the last successful
//     write and a separate timer enforces it.
//   - client-go reads the Lease before every renewal; the leader here
//     writes on top of the version it last wrote, and reads only after a
//     failure: one request per renewal instead of two.
//   - Release is on by default (ReleaseOnCancel is off in client-go).
//   - A follower waits the longer of its own lease duration and the one
//     the Lease states; client-go waits the one the Lease states.
package leader
