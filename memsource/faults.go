package memsource

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrInjected is the error of an injected List or Watch failure when
// Faults.Err is nil.
var ErrInjected = errors.New("memsource: injected fault")

// Faults are the failures a Source injects, so that tests can check how a
// controller copes with what a real API server does: dropped watches,
// failed requests, expired versions and slow answers. The zero value
// injects none. Counts are used up as the faults fire; Faults reports what
// is left.
type Faults struct {
	// CloseWatchesAfter ends every watch once it has sent this many
	// Added, Updated and Deleted events (bookmarks do not count), as a
	// server closes a stream; the watcher must watch again. Zero means never.
	CloseWatchesAfter int
	// FailLists is the number of coming lists that fail with Err, however
	// they list: List calls, and Watch calls that stream the initial list
	// (SendInitialEvents with the StreamingList capability), so that a
	// reflector's initial sync meets the fault whichever way it takes.
	FailLists int
	// FailWatches is the number of coming Watch calls that fail with Err,
	// streaming ones included; a streaming Watch uses up a watch failure
	// first, if one is left, and a list failure otherwise.
	FailWatches int
	// Err is the cause of the injected List and Watch failures; nil means
	// ErrInjected. Set it to reflector.ErrExpired to simulate a 410.
	Err error
	// ExpireWatches is the number of coming Watch calls whose stream, from
	// any version, fails at once with an error wrapping
	// reflector.ErrExpired.
	ExpireWatches int
	// ListDelay delays every List answer; WatchDelay delays every Watch
	// start. Both wait on a timer and give up when the call's context ends,
	// so they take no real time in a testing/synctest bubble.
	ListDelay, WatchDelay time.Duration
}

// takeListFailure uses up one list failure, if any is left, and returns
// its error.
func (f *Faults) takeListFailure() error {
	if f.FailLists <= 0 {
		return nil
	}
	f.FailLists--
	return fmt.Errorf("memsource: injected list failure: %w", f.cause())
}

// takeWatchFailure uses up one watch failure, if any is left, and returns
// its error.
func (f *Faults) takeWatchFailure() error {
	if f.FailWatches <= 0 {
		return nil
	}
	f.FailWatches--
	return fmt.Errorf("memsource: injected watch failure: %w", f.cause())
}

// takeExpiry uses up one watch expiry, if any is left, and reports whether
// it did.
func (f *Faults) takeExpiry() bool {
	if f.ExpireWatches <= 0 {
		return false
	}
	f.ExpireWatches--
	return true
}

// cause returns the error injected failures wrap.
func (f *Faults) cause() error {
	if f.Err != nil {
		return f.Err
	}
	return ErrInjected
}

// SetFaults replaces the faults the source injects. Running watches apply
// a new CloseWatchesAfter when they next read the history, counting the
// events they have already sent.
func (s *Source[T]) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
}

// Faults returns the faults the source injects, with the counts that are
// left.
func (s *Source[T]) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// Compact forgets the whole history, as etcd's compaction does: watches
// and continue tokens from versions before the current one fail with
// reflector.ErrExpired, including running watches that have not caught up.
func (s *Source[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history.Clear()
	s.oldest = s.version
	clear(s.paged)
	s.paged = s.paged[:0]
}

// CloseWatches ends every running watch now, as a restarting server does.
// Their Events channels close without an error event.
func (s *Source[T]) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeAll != nil {
		close(s.closeAll)
		s.closeAll = nil
	}
}

// sleep waits d, counting the delay in counter; it returns ctx.Err() if ctx
// ends first.
func sleep(ctx context.Context, d time.Duration, counter *atomic.Uint64) error {
	if d <= 0 {
		return nil
	}
	counter.Add(1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
