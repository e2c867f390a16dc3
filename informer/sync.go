package informer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Syncer is something that fills up from a source and can be waited for:
// an *Informer, a *Registration, a *Factory.
type Syncer interface {
	// Name identifies the Syncer in WaitForCacheSync's error.
	Name() string
	// HasSynced reports whether the Syncer has synced.
	HasSynced() bool
	// WaitForSync blocks until the Syncer has synced and returns nil, or
	// returns an error once it cannot sync or ctx ends.
	WaitForSync(ctx context.Context) error
}

// ErrNotSynced is wrapped by the error WaitForCacheSync returns.
var ErrNotSynced = errors.New("informer: caches not synced")

// WaitForCacheSync blocks until every Syncer has synced and returns nil.
// If ctx ends first, or a Syncer stops before syncing, it returns an error
// wrapping ErrNotSynced, and the cause (ctx.Err() or ErrStopped), that
// names every Syncer that had not synced. It waits on channels; it does
// not poll. A nil Syncer is an error, reported at once with its position.
func WaitForCacheSync(ctx context.Context, syncers ...Syncer) error {
	for i, s := range syncers {
		if isNil(s) {
			return fmt.Errorf("informer: WaitForCacheSync: syncer %d of %d is nil", i+1, len(syncers))
		}
	}
	var failed []string
	var causes []error
	for _, s := range syncers {
		if err := s.WaitForSync(ctx); err != nil {
			failed = append(failed, s.Name())
			if !slices.Contains(causes, err) {
				causes = append(causes, err)
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: %w", ErrNotSynced, strings.Join(failed, ", "), errors.Join(causes...))
}

// isNil reports whether s is nil or a nil pointer, such as an *Informer
// that was never assigned.
func isNil(s Syncer) bool {
	if s == nil {
		return true
	}
	v := reflect.ValueOf(s)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
