// Package fanout buffers notifications for the receivers of one source of
// changes, one Listener per receiver, and delivers each listener's
// notifications from its own goroutine. The informer composes it: it
// pushes the notifications of every change it applies to its cache to
// each listener, and turns a delivered Notification into a handler call.
//
// # Semantics
//
// A listener delivers the notifications pushed to it in the order they
// were pushed, one at a time, from the goroutine that calls Run. A
// delivery that panics is reported and skipped; the next one follows.
// Stop drops what is pending, refuses later pushes and ends Run once the
// delivery in progress returns; Done tells when.
//
// Pushing allocates nothing per notification: notifications are values
// appended to a list of fixed-size segments, which grows by linking a
// segment, never by copying, and whose delivered segments are reused. (A
// Coalesce overflow allocates only as it grows to hold more keys.)
// Run takes the whole buffer at once, so the buffer's mutex is taken once
// per batch of deliveries, not per notification.
//
// A buffer is unbounded unless Options.Limit bounds the notifications
// pending (waiting, or taken by Run and not yet delivered). A full
// buffer applies its Overflow policy:
//
//   - Block: the push waits until Run has delivered enough to make room,
//     or until Stop, which releases it and drops the rest of its batch.
//   - Coalesce: the push never waits. Past the limit, each notification is
//     merged with the one pending for its key, so that the receiver skips
//     intermediate states but ends with the same view of the cache: an add
//     then updates become one add of the last state, updates become one
//     update from the oldest to the newest state, an add then its deletion
//     vanish, an update then a deletion become the deletion of the state
//     the receiver knows, and a deletion then a re-creation become an
//     update. Notifications for one key stay in order; a merged one keeps
//     the place of the first it absorbed. The overflow holds at most one
//     notification per key.
//
// PushUnbounded ignores the limit, for a replay of the whole cache.
//
// A listener tracks the initial list: Synced is closed once
// MarkUpstreamSynced was called and every initial-list add pushed before
// it has been delivered or merged away.
//
// A listener also holds its resync schedule (SetResync, CheckResync):
// Push drops notifications marked Resync unless the listener was due at
// the last check. The rules that choose the periods belong to the owner.
//
// # Concurrency
//
// A Listener is safe for simultaneous use by multiple goroutines. Pushes
// from several goroutines are delivered in the order they took the
// buffer's mutex; a single batch is never interleaved with another one
// unless a Block push waits in the middle of it. Run is meant for one
// goroutine; deliveries never run under a lock, and nothing in this
// package waits for a delivery except a push to a full Block buffer.
// The resync schedule has its own mutex, never held with the buffer's.
package fanout
