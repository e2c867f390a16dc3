package reflector

import (
	"context"
	"errors"
)

// errNoFunc reports a ListWatch used without the function a call needs.
var errNoFunc = errors.New("reflector: ListWatch function not set")

// ListWatch adapts a pair of functions to the ListerWatcher interface, for
// sources that are easier to write as two closures than as a type.
//
// A ListWatch is safe for simultaneous use by multiple goroutines when its
// functions are.
type ListWatch[T any] struct {
	// ListFunc answers List. It must honour ListOptions.Limit and
	// ListOptions.Continue when Supported.Pagination is set.
	ListFunc func(ctx context.Context, opts ListOptions) (ListResult[T], error)
	// WatchFunc answers Watch. It must honour WatchOptions.SendInitialEvents
	// when Supported.StreamingList is set, and AllowBookmarks when
	// Supported.Bookmarks is set.
	WatchFunc func(ctx context.Context, opts WatchOptions) (Watch[T], error)
	// Supported declares the optional features the two functions implement;
	// the zero value declares none, which is always safe.
	Supported Capabilities
}

// List calls ListFunc, or fails if it is nil.
func (lw *ListWatch[T]) List(ctx context.Context, opts ListOptions) (ListResult[T], error) {
	if lw.ListFunc == nil {
		return ListResult[T]{}, errNoFunc
	}
	return lw.ListFunc(ctx, opts)
}

// Watch calls WatchFunc, or fails if it is nil.
func (lw *ListWatch[T]) Watch(ctx context.Context, opts WatchOptions) (Watch[T], error) {
	if lw.WatchFunc == nil {
		return nil, errNoFunc
	}
	return lw.WatchFunc(ctx, opts)
}

// Capabilities returns lw.Supported.
func (lw *ListWatch[T]) Capabilities() Capabilities {
	return lw.Supported
}
