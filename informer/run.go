package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/internal/fanout"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

// batchSize is the largest number of keys the informer takes from its
// DeltaFIFO at once, client-go's batch size.
const batchSize = 1000

// Run starts the informer: a reflector lists and watches the source into
// a DeltaFIFO, a processing goroutine applies the FIFO's deltas to the
// cache and hands the notifications to each handler's buffer (the
// reflector's goroutine does so itself for the watch events that find
// nothing else going on, and for a list into an empty cache, as route.go
// details), and
// one goroutine per handler calls it. Run blocks until ctx ends, and returns
// only after every goroutine it started has exited (including handler
// calls in progress). It returns nil then, unless the cache mutation
// detector found a modified object: then it returns the first
// *CacheMutationError, after a last check of every copy. It returns at
// once ErrStarted if Run was called before, ErrFactoryShutDown for an
// informer its factory never started, and the reason a detector that is
// on cannot work (ErrCannotCopy, or a MutationDetectorEnv that is not a
// boolean).
func (inf *Informer[T]) Run(ctx context.Context) error {
	if inf.zero() {
		return errZero
	}
	inf.mu.Lock()
	if inf.started {
		inf.mu.Unlock()
		return ErrStarted
	}
	if inf.stopErr != nil {
		inf.mu.Unlock()
		return inf.stopErr
	}
	inf.started = true
	inf.runCtx = ctx
	refl := inf.newReflector(reflector.Options{
		Name:         inf.name,
		Logger:       inf.logger,
		ResyncPeriod: inf.check,
		ShouldResync: inf.shouldResync,
		ErrorHandler: inf.onError,
		Tuning:       inf.reflectorOpts,
	})
	inf.refl = refl
	for _, l := range *inf.listeners.Load() {
		inf.wg.Go(l.Run)
	}
	inf.mu.Unlock()

	// A processing goroutine blocked on a full Block buffer wakes when
	// stop stops the listeners.
	stopOnCancel := context.AfterFunc(ctx, inf.stop)
	defer stopOnCancel()

	var wg sync.WaitGroup
	wg.Go(func() { refl.Run(ctx) })
	wg.Go(func() { inf.process(ctx) })
	if d := inf.detector; d != nil {
		wg.Go(func() { d.run(ctx) })
	}
	wg.Wait()

	inf.stop()
	inf.fifo.Close()
	inf.wg.Wait()
	return inf.finalCheck()
}

// stop stops every listener, releasing a processing goroutine blocked on
// a full buffer, and refuses new handlers. It is idempotent.
func (inf *Informer[T]) stop() {
	inf.mu.Lock()
	if !inf.stopped {
		inf.stopped = true
		close(inf.stoppedCh)
	}
	ls := *inf.listeners.Load()
	inf.mu.Unlock()
	for _, l := range ls {
		l.Stop()
	}
}

// process pops batches of deltas until ctx ends.
func (inf *Informer[T]) process(ctx context.Context) {
	for {
		err := inf.fifo.PopBatch(ctx, batchSize, inf.apply)
		if err != nil && (ctx.Err() != nil || errors.Is(err, deltafifo.ErrClosed)) {
			return
		}
		inf.checkSynced()
	}
}

// apply applies one batch to the cache and hands its notifications to
// every listener. A delta the cache refuses (an index function failed) is
// reported and skipped, with no notification.
//
// The batch is applied, and the set of listeners it goes to is read,
// under deltaMu; the pushes happen after deltaMu is released, since a full
// Block buffer can make them wait for a handler. A handler added
// meanwhile is not in that set: its replay, pushed under deltaMu, already
// holds the batch, and the next batch reaches it after the replay.
func (inf *Informer[T]) apply(items []deltafifo.Item[T]) error {
	inf.deltaMu.Lock()
	ns := inf.scratch[:0]
	for i := range items {
		it := &items[i]
		initial := it.InInitialList
		for _, d := range it.Deltas {
			// A key's deltas from the first list come first; a watch event
			// queued behind them (a delete, then a re-create) is not part
			// of the initial list, nor is anything after it.
			initial = initial && (d.Type == deltafifo.Replaced || d.Type == deltafifo.Sync)
			n, ok := inf.applyDelta(it.Key, d, initial)
			if ok {
				ns = append(ns, n)
			}
		}
	}
	ls := *inf.listeners.Load()
	inf.deltaMu.Unlock()
	push(ls, ns)
	clear(ns) // do not pin objects until the next batch
	inf.scratch = ns[:0]
	return nil
}

// applyDelta applies one delta to the cache and returns the notification
// it calls for, if any. Requires deltaMu held.
func (inf *Informer[T]) applyDelta(key string, d deltafifo.Delta[T], initial bool) (fanout.Notification[T], bool) {
	if d.Type == deltafifo.Deleted {
		old, existed, err := inf.cache.DeleteKey(key)
		inf.indexedLocked(key)
		if err != nil {
			inf.reportError(fmt.Errorf("informer: deleting %q from the cache: %w", key, err))
			return fanout.Notification[T]{}, false
		}
		if !existed {
			// Only an object the cache refused can be deleted without
			// being cached; no handler heard of it.
			return fanout.Notification[T]{}, false
		}
		if inf.detector != nil {
			inf.detector.deleted(key)
		}
		return fanout.Notification[T]{Key: key, Old: old, Obj: d.Object, Kind: fanout.Delete, Inferred: d.Inferred}, true
	}
	if inf.share != nil && (d.Type == deltafifo.Added || d.Type == deltafifo.Replaced) {
		// Transformed, not yet cached: from here on the object is
		// read-only, and may share parts with the objects cached before.
		// Updates keep their own parts: sharing costs more than an
		// update's other work on the informer's path.
		d.Object = inf.share(d.Object)
	}
	old, existed, err := inf.putLocked(key, d.Object)
	if err != nil {
		inf.reportError(fmt.Errorf("informer: caching %q: %w", key, err))
		return fanout.Notification[T]{}, false
	}
	if inf.detector != nil {
		inf.detector.cached(key, d.Object)
	}
	if !existed {
		return fanout.Notification[T]{Key: key, Obj: d.Object, Kind: fanout.Add, Initial: initial}, true
	}
	resync := isResync(d, old)
	if !resync && inf.equal != nil && inf.equal(old, d.Object) {
		return fanout.Notification[T]{}, false
	}
	return fanout.Notification[T]{Key: key, Old: old, Obj: d.Object, Kind: fanout.Update, Resync: resync}, true
}

// isResync reports whether d, a change of the cached object old, is a
// resync: a periodic one (Sync), or a relist (Replaced) that found the
// object at the version already cached. Only handlers whose resync is
// due receive resyncs. Watch events are changes the source reported, and
// an empty version says nothing, so neither is ever taken for a resync.
func isResync[T keys.Object](d deltafifo.Delta[T], old T) bool {
	switch d.Type {
	case deltafifo.Sync:
		return true
	case deltafifo.Replaced:
		rv := d.Object.GetResourceVersion()
		return rv != "" && rv == old.GetResourceVersion()
	}
	return false
}

// checkSynced marks the informer synced once its FIFO has synced.
func (inf *Informer[T]) checkSynced() {
	if inf.isSynced.Load() || !inf.fifo.HasSynced() {
		return
	}
	inf.deltaMu.Lock()
	defer inf.deltaMu.Unlock()
	if inf.isSynced.Load() {
		return
	}
	inf.isSynced.Store(true)
	close(inf.synced)
	for _, l := range *inf.listeners.Load() {
		l.MarkUpstreamSynced()
	}
}

// reportError hands err to the error handler, with Run's context.
func (inf *Informer[T]) reportError(err error) {
	ctx := inf.runCtx
	if ctx == nil {
		ctx = context.Background()
	}
	inf.onError(ctx, err)
}
