// Package deltafifo provides DeltaFIFO, the queue of changes between a
// reflector, which lists and watches a source, and an informer, which
// applies the changes to its cache and notifies handlers.
//
// The DeltaFIFO keeps, for every object key, the changes (Deltas) that have
// not been processed yet, oldest first, and hands one key's changes at a time
// to a processor through Pop, or many keys at once through PopBatch. A
// processor therefore sees everything that happened to an object since it
// last saw it, in order, and each change at most once.
//
// # Semantics
//
// Keys are computed once per call by the key function given to New, before
// anything is queued; an error from it, or from Options.Transform, is
// returned and nothing is queued. When that function is keys.Of, the FIFO
// builds the same keys itself, with the same errors, reusing the key
// strings it holds.
//
//   - Add, Update and Delete append Added, Updated and Deleted deltas to the
//     key's list; a key gets one place in the queue, when its first pending
//     delta arrives, and keeps it until popped.
//   - Delete of a key that has nothing in the FIFO and is not in
//     Options.KnownObjects (the consumer's cache) is dropped.
//   - Two consecutive deletions of a key collapse into one: the older one
//     stays unless it was inferred. No other deltas are merged.
//   - Replace(list, rv) appends Replaced for every listed object, and one
//     inferred deletion (Delta.Inferred) for every key that has deltas in
//     the FIFO, or is known, but is missing from the list. The deletion
//     carries the newest state known of the object: its newest delta, else
//     the cached object, else the zero value. Listed objects are queued in
//     list order, new inferred deletions after them.
//   - Resync appends a Sync delta with the cached object for every known key
//     that has nothing in the FIFO. Keys with pending deltas are skipped, so
//     a stale cached state never follows a newer pending one.
//   - Options.Transform is applied once to every object coming in through
//     Add, Update, Delete and Replace; never to inferred deletions or to the
//     Sync deltas of Resync, whose objects come from the cache.
//   - HasSynced is true once every key queued by the first Replace (listed
//     objects and inferred deletions) has been popped and processed, or
//     from the start if Add, Update or Delete came before any Replace.
//     Processors are told whether the deltas they get belong to that first
//     Replace.
//
// Idle reports a FIFO that holds no delta, neither queued nor being
// processed. Popping never ends idleness, only recording or requeueing
// does, so the one goroutine feeding a FIFO can tell that the consumer has
// caught up with everything it recorded.
//
// A key being processed counts as having deltas in the FIFO: Delete is not
// dropped for it, Replace infers its deletion from the deltas being
// processed, and Resync skips it. If the processor has just seen a deletion,
// a deletion queued for the key meanwhile is dropped when the processor
// returns, because applying it would delete the object twice.
//
// # Concurrency
//
// All methods are safe for simultaneous use by multiple goroutines. Pop,
// PopBatch and Replace are atomic with respect to each other: a Pop sees
// a Replace completely or not at all.
//
// Processors run without the FIFO's lock, so other goroutines keep adding
// deltas while a processor works, and a processor may call the FIFO itself.
// Deltas that arrive for a key while it is being processed wait in a separate
// list that no other Pop or PopBatch can take: never do two processors hold
// the same key. When the processor returns, that list is queued at the end;
// if the processor asked for a requeue (an error wrapping ErrRequeue), the
// processed deltas are put back in front of it.
//
// Pop and PopBatch wait on a condition variable and wake when a key becomes
// ready, when the FIFO is closed, or when their context is done (through
// context.AfterFunc). A done context makes them return ctx.Err() without
// taking anything. After Close they still return the keys that are ready,
// then ErrClosed. The FIFO registers with a waiting popper's context once
// and keeps the registration for the next wait with the same context, so
// that waiting allocates nothing, until the context is done or the FIFO is
// closed: Close a FIFO that is abandoned while its consumer's context lives
// on, or the context keeps it reachable.
//
// The key function and the transform run without the lock. KnownObjects is
// consulted with the lock held, so that Delete, Replace and Resync see the
// queue and the cache at one instant; it must not call the FIFO.
//
// # Differences from client-go
//
// This is the per-key DeltaFIFO of client-go's tools/cache (delta_fifo.go,
// v0.37), not the RealFIFO its informers now use by default. Deliberate
// differences:
//
//   - Typed: Delta[T] carries a T; an inferred deletion is a Deleted delta
//     with Inferred set and the last known object (or the zero value)
//     instead of a DeletedFinalStateUnknown that consumers must type-switch
//     on, and the key comes with the deltas.
//   - Errors instead of panics and partial work: a failing key function or
//     transform makes Replace return before queueing anything, where
//     client-go has queued the items before the failing one.
//   - Processors run outside the lock (client-go holds its lock while
//     processing), with the per-key exclusion described above. Requeueing is
//     asked for by returning an error wrapping ErrRequeue, which client-go
//     removed in v0.33.
//   - PopBatch hands up to N keys to one processor call in a reused slice.
//   - Idle tells a producer that the consumer has caught up; client-go has
//     no equivalent.
//   - Pop and PopBatch take a context; methods that add deltas return
//     ErrClosed after Close (client-go accepts them).
//   - Replace records Replaced; client-go records Sync unless
//     EmitDeltaTypeReplaced is set, which its informers set.
//   - HasSynced turns true after the last initial key has been processed;
//     client-go turns it true when that key is popped, before processing.
//   - Resync uses the keys KnownObjects reports rather than recomputing
//     them from the cached objects.
//   - The deltas handed to a processor are reused afterwards; processors
//     must copy what they keep.
//   - A zero DeltaFIFO reads as empty and its methods that return an error
//     say to call New.
package deltafifo
