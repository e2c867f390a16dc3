package informer

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"time"
)

// MutationDetectorEnv names the environment variable that turns the cache
// mutation detector on for every informer created while it holds a true
// value as strconv.ParseBool reads it ("1", "t", "true"...), whatever
// their Options say: CI sets it to check a whole test suite without a
// change to the code. An empty or false value leaves
// MutationDetector.Enabled in charge; any other value keeps every
// informer from running, with an error naming the variable.
const MutationDetectorEnv = "TYPEDCACHE_CACHE_MUTATION_DETECTOR"

// DefaultMutationCheckPeriod is the period of the cache mutation
// detector's checks when MutationDetector.Period is zero, client-go's.
const DefaultMutationCheckPeriod = time.Second

// ErrCannotCopy is wrapped by the error of an informer whose cache
// mutation detector is on while T has no DeepCopy method returning T and
// MutationDetector.Copy is nil. Such an informer never runs: Run,
// AddEventHandler, AddIndexers and WaitForSync fail with that error at
// once.
var ErrCannotCopy = errors.New("informer: cache mutation detector: cannot copy objects")

// MutationDetector configures the cache mutation detector, a test aid that
// catches code modifying the objects an informer shares with its handlers
// and listers (see the package documentation). The zero value leaves it
// off unless MutationDetectorEnv turns it on.
type MutationDetector[T any] struct {
	// Enabled turns the detector on. MutationDetectorEnv turns it on too.
	Enabled bool
	// Copy returns a deep copy of an object: one that shares no memory
	// that anybody could modify with the original. nil means T's
	// DeepCopy method, which every Kubernetes type has; with neither, an
	// informer whose detector is on fails with ErrCannotCopy. Copy runs
	// wherever Equal does, with the cache's write lock held: it must not
	// call the informer.
	Copy func(T) T
	// Period is the time between two checks of every cached object; zero
	// or negative means DefaultMutationCheckPeriod.
	Period time.Duration
}

// CacheMutationError reports an object that was modified after the
// informer cached it, found by the cache mutation detector. The informer
// hands each one to Options.ErrorHandler, once per cached state of an
// object, and Run returns the first one found instead of nil.
type CacheMutationError struct {
	// Informer is the name of the informer.
	Informer string
	// Key is the cache key of the object.
	Key string
	// Diff is what changed, as go-cmp reports it: the object as it was
	// cached (-) and as it is now (+).
	Diff string
}

// Error names the informer and the key, and includes the diff.
func (e *CacheMutationError) Error() string {
	return fmt.Sprintf("informer: %s: cached object %q was modified (-cached +now):\n%s", e.Informer, e.Key, e.Diff)
}

// deepCopier is implemented by types with a DeepCopy method returning
// their own type, as every Kubernetes type has.
type deepCopier[T any] interface{ DeepCopy() T }

// copierOf returns the copy function of the detector: o.Copy, or else T's
// DeepCopy method, or else nil.
func copierOf[T any](o MutationDetector[T]) func(T) T {
	if o.Copy != nil {
		return o.Copy
	}
	if !reflect.TypeFor[T]().Implements(reflect.TypeFor[deepCopier[T]]()) {
		return nil
	}
	return func(v T) T {
		c, ok := any(v).(deepCopier[T])
		if !ok { // a nil interface value: nothing to copy
			return v
		}
		return c.DeepCopy()
	}
}

// detectorOn reports whether the detector is on, from o and the
// environment.
func detectorOn[T any](o MutationDetector[T]) (bool, error) {
	v := os.Getenv(MutationDetectorEnv)
	if v == "" {
		return o.Enabled, nil
	}
	env, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("informer: %s=%q: want true or false", MutationDetectorEnv, v)
	}
	return o.Enabled || env, nil
}

// initDetector gives the informer its detector if o or the environment
// turn it on. If the detector cannot work, the informer stops before it
// ever runs, with the cause as the error of its every call.
func (inf *Informer[T]) initDetector(o MutationDetector[T]) {
	on, err := detectorOn(o)
	if err == nil && on {
		copyFunc := copierOf(o)
		if copyFunc == nil {
			t := reflect.TypeFor[T]()
			err = fmt.Errorf("%w: %v has no method DeepCopy() %v and Options.MutationDetector.Copy is nil", ErrCannotCopy, t, t)
		} else {
			period := o.Period
			if period <= 0 {
				period = DefaultMutationCheckPeriod
			}
			inf.detector = newDetector(inf.name, copyFunc, period, inf.reportError)
		}
	}
	if err != nil {
		inf.stopErr, inf.stopped = err, true
		close(inf.stoppedCh)
	}
}

// finalCheck compares every copy the detector holds with the shared
// object, once the informer's goroutines have exited, and returns the
// first mutation the detector found, if any.
func (inf *Informer[T]) finalCheck() error {
	if inf.detector == nil {
		return nil
	}
	inf.detector.check(true)
	if first := inf.detector.firstFound(); first != nil {
		return first
	}
	return nil
}
