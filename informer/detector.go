package informer

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/internal/ring"
)

// retiredLimit is how many objects the detector keeps after the cache
// replaced or deleted them, since handlers may still hold them: the
// oldest is compared one last time and dropped when a newer one comes.
const retiredLimit = 1024

// detector is the cache mutation detector: it keeps a copy of every object
// the cache takes, and compares it with the shared object periodically
// while the object is cached, when the cache replaces or deletes it, when
// the detector drops the copy, and at shutdown. Periodic checks leave out
// retired copies, so that their cost follows the size of the cache.
//
// The informer calls cached and deleted with deltaMu held, in the order
// of the cache's writes; check runs on any goroutine.
type detector[T any] struct {
	informer string
	copy     func(T) T
	period   time.Duration
	report   func(error)

	// mu guards live, retired and first. No comparison runs under it.
	mu sync.Mutex
	// live holds the copy of every cached object, by key.
	live map[string]*copied[T]
	// retired holds the copies of the objects the cache replaced or
	// deleted last, at most retiredLimit, oldest first.
	retired ring.Ring[*copied[T]]
	// first is the first mutation found, which Run returns.
	first *CacheMutationError
}

// copied is an object the cache took and the copy made at that moment.
type copied[T any] struct {
	key    string
	shared T
	copy   T
	// reported is set once a mutation or a failed comparison of this
	// object has been reported, so that it is reported once.
	reported atomic.Bool
}

// newDetector returns a detector that copies with copyFunc, checks every
// period once run, and reports what it finds to report.
func newDetector[T any](informer string, copyFunc func(T) T, period time.Duration, report func(error)) *detector[T] {
	return &detector[T]{informer: informer, copy: copyFunc, period: period, report: report, live: make(map[string]*copied[T])}
}

// cached records that the cache now holds obj under key, retiring the
// copy of the object it replaced.
func (d *detector[T]) cached(key string, obj T) {
	c := &copied[T]{key: key, shared: obj, copy: d.copy(obj)}
	d.mu.Lock()
	old := d.live[key]
	d.live[key] = c
	dropped := d.retireLocked(old)
	d.mu.Unlock()
	d.compare(old)
	d.compare(dropped)
}

// deleted records that the cache no longer holds key, retiring the copy
// of the object it deleted.
func (d *detector[T]) deleted(key string) {
	d.mu.Lock()
	old := d.live[key]
	delete(d.live, key)
	dropped := d.retireLocked(old)
	d.mu.Unlock()
	d.compare(old)
	d.compare(dropped)
}

// retireLocked moves c, if not nil, to the retired copies and returns the
// one that makes room for it, if any. Requires mu held.
func (d *detector[T]) retireLocked(c *copied[T]) *copied[T] {
	if c == nil {
		return nil
	}
	var dropped *copied[T]
	if d.retired.Len() == retiredLimit {
		dropped, _ = d.retired.Pop()
	}
	d.retired.Push(c)
	return dropped
}

// run checks every period until ctx ends.
func (d *detector[T]) run(ctx context.Context) {
	t := time.NewTicker(d.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.check(false)
		}
	}
}

// check compares the copies of the cached objects with them, in key
// order, then, if retired, the retired copies, oldest first.
func (d *detector[T]) check(retired bool) {
	d.mu.Lock()
	all := make([]*copied[T], 0, len(d.live))
	for _, c := range d.live {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b *copied[T]) int { return cmp.Compare(a.key, b.key) })
	if retired {
		for i := range d.retired.Len() {
			all = append(all, d.retired.At(i))
		}
	}
	d.mu.Unlock()
	for _, c := range all {
		d.compare(c)
	}
}

// compare reports c, if not nil, when its shared object no longer equals
// its copy and it has not been reported yet.
func (d *detector[T]) compare(c *copied[T]) {
	if c == nil || c.reported.Load() {
		return
	}
	diff, err := diffOf(c.copy, c.shared)
	if (err == nil && diff == "") || !c.reported.CompareAndSwap(false, true) {
		return
	}
	if err != nil {
		d.report(fmt.Errorf("informer: %s: cache mutation detector: comparing %q: %w", d.informer, c.key, err))
		return
	}
	e := &CacheMutationError{Informer: d.informer, Key: c.key, Diff: diff}
	d.mu.Lock()
	if d.first == nil {
		d.first = e
	}
	d.mu.Unlock()
	d.report(e)
}

// firstFound returns the first mutation found, or nil.
func (d *detector[T]) firstFound() *CacheMutationError {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.first
}

// compareAll makes go-cmp compare unexported fields too, instead of
// panicking on them.
var compareAll = gocmp.Exporter(func(reflect.Type) bool { return true })

// diffOf returns go-cmp's diff from was to now, "" when they are equal
// (Equal methods included), and an error if the comparison panicked (an
// Equal method can). reflect.DeepEqual, much faster, settles the common
// case: an object equal to its copy field by field was not modified.
func diffOf[T any](was, now T) (diff string, err error) {
	if reflect.DeepEqual(was, now) {
		return "", nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("comparison panicked: %v", r)
		}
	}()
	if gocmp.Equal(was, now, compareAll) {
		return "", nil
	}
	return gocmp.Diff(was, now, compareAll), nil
}
