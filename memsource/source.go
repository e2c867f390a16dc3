package memsource

import (
	"sync"
	"time"

	"github.com/typedcache/typedcache/internal/ring"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/reflector"
)

// Default values of Options fields left zero.
const (
	// DefaultHistorySize is the number of writes a source remembers for
	// watches and continue tokens.
	DefaultHistorySize = 10_000
	// DefaultBookmarkInterval is the time between two bookmarks of a watch
	// that allows them.
	DefaultBookmarkInterval = time.Minute
)

// watchBatch is the most history records a watch copies out per lock
// acquisition.
const watchBatch = 64

// Options are the optional settings of a Source. The zero value is a source
// with every capability, a history of DefaultHistorySize writes, bookmarks
// every DefaultBookmarkInterval, objects copied with their DeepCopy method
// if they have one, and no faults.
type Options[T Object] struct {
	// KeyFunc computes the key an object is stored under;
	// nil means keys.Of.
	KeyFunc keys.Func[T]
	// Clone, if set, returns a deep copy of an object. The source then
	// stores its own copies and hands out copies, so no caller can change
	// what it stores or what another caller received. If Clone is nil and
	// T has a method DeepCopy() T (as every Kubernetes API type has), the
	// source copies with it; a type with neither is shared (see the
	// package doc, Ownership). Clone never runs under a lock.
	Clone func(T) T
	// Shared makes the source keep and hand out the objects themselves
	// even when T has a DeepCopy method, saving one copy per object handed
	// out, for programs that never modify them. It has no effect if Clone
	// is set.
	Shared bool
	// HistorySize is how many writes the source keeps for watches and
	// continue tokens; a version older than the oldest kept is expired.
	// Zero or negative means DefaultHistorySize.
	HistorySize int
	// BookmarkInterval is the time between two bookmarks on a watch that
	// allows them; zero or negative means DefaultBookmarkInterval.
	BookmarkInterval time.Duration

	// DisablePagination makes List ignore Limit and Continue, and
	// Capabilities report no pagination.
	DisablePagination bool
	// DisableBookmarks makes Watch ignore AllowBookmarks, and Capabilities
	// report no bookmarks.
	DisableBookmarks bool
	// DisableStreamingList makes Watch ignore SendInitialEvents, and
	// Capabilities report no streaming list.
	DisableStreamingList bool
	// OpaqueVersions makes resource versions strings that are not decimal
	// numbers ("v" and base 36), as a source whose consumers must not
	// compare versions may have.
	OpaqueVersions bool

	// Faults are the faults injected from the start; SetFaults changes them.
	Faults Faults
}

// Source is an in-memory reflector.ListerWatcher: a keyed set of objects
// with a global resource version, a bounded history of writes for watches,
// and fault injection for tests. See the package doc for its semantics.
//
// A Source must be made with New: a zero Source reads as empty, and its
// methods that return an error return one that names New. It is safe for simultaneous use by
// multiple goroutines.
type Source[T Object] struct {
	keyFunc          keys.Func[T]
	clone            func(T) T
	historySize      int
	bookmarkInterval time.Duration
	caps             reflector.Capabilities
	codec            codec

	// writeMu serialises writers. A writer holds it from the existence
	// check to the end of the write, including SetResourceVersion, and
	// takes mu only to publish. Fields marked "writers" are changed with
	// both locks held, so holding either one is enough to read them.
	writeMu sync.Mutex
	mu      sync.Mutex

	items   map[string]entry[T] // writers: the current objects by key
	version uint64              // writers: the version of the last write (1 when none)

	// history holds the records of the writes with versions oldest+1 to
	// version, one per version, oldest first.
	history ring.Ring[record[T]]
	oldest  uint64 // watches and continue tokens before it are expired

	snap     *snapshot[T]   // sorted view at snap.version; may be stale
	changed  []change[T]    // the writes after snap.version, in order
	overflow bool           // changed grew past use: rebuild snap from items
	paged    []*snapshot[T] // older snapshots that continue tokens refer to, newest first

	wake     chan struct{} // closed at the next write; nil while nobody waits
	closeAll chan struct{} // closed by CloseWatches; nil while nobody watches
	faults   Faults

	stats counters
}

// entry is a stored object and the version of its last write.
type entry[T any] struct {
	obj     T
	version string
}

// record is one write in the history.
type record[T any] struct {
	typ     reflector.EventType // Added, Updated or Deleted
	key     string
	obj     T      // the new state, or the last state for Deleted
	prev    T      // the state before a Updated write
	version string // the version of this write
}

// New returns an empty Source at resource version 1 (the first write makes
// version 2, as in a new etcd cluster).
func New[T Object](opts Options[T]) *Source[T] {
	s := &Source[T]{
		keyFunc:          opts.KeyFunc,
		clone:            cloneFunc(opts),
		historySize:      opts.HistorySize,
		bookmarkInterval: opts.BookmarkInterval,
		caps: reflector.Capabilities{
			Pagination:    !opts.DisablePagination,
			Bookmarks:     !opts.DisableBookmarks,
			StreamingList: !opts.DisableStreamingList,
		},
		codec:   codec{opaque: opts.OpaqueVersions},
		items:   make(map[string]entry[T]),
		snap:    &snapshot[T]{version: 1},
		version: 1,
		oldest:  1,
		faults:  opts.Faults,
	}
	if s.keyFunc == nil {
		s.keyFunc = keys.Of[T]
	}
	if s.historySize <= 0 {
		s.historySize = DefaultHistorySize
	}
	if s.bookmarkInterval <= 0 {
		s.bookmarkInterval = DefaultBookmarkInterval
	}
	return s
}

// Capabilities reports the features the source was built with: all of them
// unless Options turned some off.
func (s *Source[T]) Capabilities() reflector.Capabilities {
	return s.caps
}

// Get returns the object stored under key, and reports whether there is
// one.
func (s *Source[T]) Get(key string) (T, bool) {
	s.mu.Lock()
	e, ok := s.items[key]
	s.mu.Unlock()
	if !ok {
		var zero T
		return zero, false
	}
	return s.out(e.obj), true
}

// Len returns the number of objects stored.
func (s *Source[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// ResourceVersion returns the source's current resource version: that of
// the last write, or of the empty source.
func (s *Source[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.codec.format(s.version)
}

// out returns obj as handed to a caller: a copy when the source clones.
func (s *Source[T]) out(obj T) T {
	if s.clone == nil {
		return obj
	}
	return s.clone(obj)
}
