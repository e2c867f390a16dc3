package reflector

import (
	"context"
	"errors"
	"time"
)

// ErrExpired reports that a requested resource version is no longer
// available from the source: too old for its history (HTTP 410 Gone in
// Kubernetes) or newer than the source has seen. Sources wrap it in the
// error of List, Watch or a stream's Next; the reflector recognises it
// with errors.Is and relists instead of backing off.
var ErrExpired = errors.New("reflector: resource version expired")

// ListerWatcher is a source of objects of type T: something that can list
// its current content at a version and then stream the changes after that
// version. Implementations must be safe for simultaneous use by multiple
// goroutines.
type ListerWatcher[T any] interface {
	// List returns the source's content. With opts.Limit > 0 and a source
	// that supports pagination, it returns at most Limit items and a
	// Continue token for the next page.
	List(ctx context.Context, opts ListOptions) (ListResult[T], error)
	// Watch starts a stream of changes after opts.ResourceVersion. The
	// stream ends when ctx ends, when Stop is called, or when the source
	// closes it (the reflector then watches again). A version the source
	// no longer has fails with an error wrapping ErrExpired, from Watch or
	// from the stream's Next.
	Watch(ctx context.Context, opts WatchOptions) (Watch[T], error)
	// Capabilities states which optional features the source implements.
	// The reflector uses a feature only when the source declares it.
	Capabilities() Capabilities
}

// Identifier is an optional interface of a ListerWatcher that names what
// the source lists and watches, so that an informer.Factory can share one
// informer among equal sources created apart (package kube's sources
// implement it).
type Identifier interface {
	// Identity returns the same string for two sources of one object type
	// exactly when they list and watch the same objects: for a Kubernetes
	// resource, the kind of client, the resource, the namespace and the
	// selectors. "" means that the source cannot tell. It must not change.
	Identity() string
}

// Sharer is an optional interface of a ListerWatcher[T] whose objects
// can share memory where they repeat each other. An informer with a
// Transform, which may edit objects in place, passes the objects of lists
// and creations through Share after the Transform, as it caches them:
// from then on an object is read-only, as every cached object is, so
// parts of it that equal parts of earlier objects (a map of labels, say)
// may be those earlier parts. Objects of updates are cached as they are:
// an update is the informer's busiest path. An informer without a
// Transform does not call Share: its lists and watches are ReadOnly, and
// the source shares what it delivers itself. Package kube's sources
// implement it.
type Sharer[T any] interface {
	// Share returns obj with some of its parts replaced by equal parts of
	// objects passed to Share before: every field reads the same as in obj.
	// It may modify obj itself, which its caller owns. It must be safe for
	// simultaneous use by multiple goroutines.
	Share(obj T) T
}

// Capabilities lists the optional features of a ListerWatcher. The zero
// value is a minimal source: unpaginated lists, no bookmarks, no streaming
// list, opaque resource versions.
type Capabilities struct {
	// Pagination reports whether List honours Limit and Continue.
	Pagination bool
	// Bookmarks reports whether Watch sends Bookmark events when asked to
	// with WatchOptions.AllowBookmarks.
	Bookmarks bool
	// StreamingList reports whether Watch honours SendInitialEvents: it
	// first sends an Added event for every current object and then a
	// Bookmark with InitialEventsEnd set.
	StreamingList bool
}

// ListOptions are the arguments of a List call.
type ListOptions struct {
	// ResourceVersion selects how fresh the list must be: "" asks for the
	// most recent state, "0" accepts any state the source has at hand, and
	// any other value asks for a state at least that new.
	ResourceVersion string
	// Limit caps the number of items of one page; 0 means no limit. Only
	// sources with Capabilities.Pagination honour it.
	Limit int64
	// Continue is the token from the previous page, or "" for the first.
	Continue string
	// ReadOnly promises that nothing will modify the listed objects: the
	// source may make them share memory with each other and with objects
	// it returned before, where they are equal (a map of labels, say).
	ReadOnly bool
}

// ListResult is one List answer: the items, the resource version the list
// was read at, and, when more pages remain, the token for the next page.
//
// Items is handed over with the answer: the reflector passes it on to
// Store.Replace, which may keep it, so a source must not modify the slice
// afterwards.
type ListResult[T any] struct {
	Items           []T
	ResourceVersion string
	Continue        string
}

// WatchOptions are the arguments of a Watch call.
type WatchOptions struct {
	// ResourceVersion is the version to watch from: events strictly after
	// it are sent. A version the source no longer has fails with an error
	// wrapping ErrExpired, from Watch or from the stream's Next.
	ResourceVersion string
	// Timeout asks the source to end the watch after this long; 0 means the
	// source's own default.
	Timeout time.Duration
	// AllowBookmarks asks for Bookmark events, where the source has them.
	AllowBookmarks bool
	// SendInitialEvents asks for a streaming initial list, where the source
	// has one: an Added event for every object, then a Bookmark with
	// InitialEventsEnd set, then changes as usual.
	SendInitialEvents bool
	// ReadOnly promises that nothing will modify the objects of the
	// stream's events, as ListOptions.ReadOnly does for a list's.
	ReadOnly bool
}

// Watch is a running stream of events, read by one goroutine at a time.
//
// The reader pulls each event with Next on its own goroutine: a source
// that receives events from a network stream or a channel converts them
// in Next, so that no goroutine of its own stands between the stream and
// the reader, and an event costs no extra goroutine wakeup.
type Watch[T any] interface {
	// Next returns the next event, waiting until one arrives.
	//
	// It returns io.EOF once the stream has ended normally: the source
	// closed it (at its timeout, say) or Stop was called. It returns
	// another error when the stream failed, wrapping ErrExpired when the
	// watched version is gone. After either, the stream is over, and
	// every later call returns an error.
	//
	// If ctx ends before an event arrives, Next returns ctx.Err() and
	// leaves the stream as it was: no event is lost, and Next may be
	// called again.
	Next(ctx context.Context) (Event[T], error)
	// Stop ends the watch and releases its resources. It is idempotent and
	// safe to call from any goroutine, also while Next waits; Next then
	// returns io.EOF soon.
	Stop()
}

// EventType says what an Event reports.
type EventType uint8

// The event types of a watch stream.
const (
	// Added reports a new object.
	Added EventType = iota + 1
	// Updated reports a new state of an existing object (a watch.Modified
	// event in client-go).
	Updated
	// Deleted reports an object's removal; Event.Object is its last state.
	Deleted
	// Bookmark carries only a resource version: everything up to it has
	// been sent.
	Bookmark
)

// String returns the event type's name.
func (t EventType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Bookmark:
		return "Bookmark"
	}
	return "EventType(invalid)"
}

// Event is one change in a watch stream.
type Event[T any] struct {
	Type EventType
	// Object is the object's new state for Added and Updated, and its last
	// state for Deleted. It is the zero value for Bookmark.
	Object T
	// ResourceVersion is the version this event brings the watcher to. A
	// Bookmark must set it; for the other types an empty value means the
	// object's own resource version.
	ResourceVersion string
	// InitialEventsEnd marks, on a Bookmark, the end of a streaming
	// initial list.
	InitialEventsEnd bool
}
