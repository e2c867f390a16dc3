package reflector_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/reflector"
)

var (
	errGone    = fmt.Errorf("fake: version too old: %w", reflector.ErrExpired)
	pagination = reflector.Capabilities{Pagination: true}
	bookmarks  = reflector.Capabilities{Bookmarks: true}
	streaming  = reflector.Capabilities{Bookmarks: true, StreamingList: true}
	errRefused = errors.New("store refuses")
)

// errContaining matches, in scenario.wantErrs, any error whose message
// contains it.
type errContaining string

func (e errContaining) Error() string { return string(e) }

// matches reports whether err matches want.
func matches(err, want error) bool {
	if s, ok := want.(errContaining); ok {
		return strings.Contains(err.Error(), string(s))
	}
	return errors.Is(err, want)
}

// failOnce makes the first store call starting with prefix fail.
func failOnce(prefix string) func(string) error {
	var once sync.Once
	return func(op string) error {
		var err error
		if strings.HasPrefix(op, prefix) {
			once.Do(func() { err = errRefused })
		}
		return err
	}
}

// scenario is a scripted run of a reflector: the source answers lists and
// watches from the script, the reflector runs for a while, and the test
// compares what the source and the store saw.
type scenario struct {
	name    string
	caps    reflector.Capabilities
	opts    reflector.Options
	lists   []listReply
	watches []watchReply
	fail    func(op string) error
	run     time.Duration // how long to let the reflector run, beyond settling

	wantCalls []string
	wantAt    []time.Duration // when each call happened, if set; jitter is 0
	wantOps   []string
	wantErrs  []error // matched in order with errors.Is
	wantRV    string
}

func (sc scenario) test(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(sc.caps)
		lw.lists = sc.lists
		lw.watches = sc.watches
		store := &recStore{fail: sc.fail}
		rn := start(t, lw, store, sc.opts, constRand(0))
		time.Sleep(sc.run)
		synctest.Wait()
		rv := rn.r.LastSyncResourceVersion()
		rn.stop()

		if diff := cmp.Diff(sc.wantCalls, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
		if sc.wantAt != nil {
			if diff := cmp.Diff(sc.wantAt, lw.Times()); diff != "" {
				t.Errorf("source call times mismatch (-want +got):\n%s", diff)
			}
		}
		if diff := cmp.Diff(sc.wantOps, store.Ops()); diff != "" {
			t.Errorf("store calls mismatch (-want +got):\n%s", diff)
		}
		errs := rn.Errs()
		if len(errs) != len(sc.wantErrs) {
			t.Errorf("reported errors = %v, want %d matching %v", errs, len(sc.wantErrs), sc.wantErrs)
		} else {
			for i, want := range sc.wantErrs {
				if !matches(errs[i], want) {
					t.Errorf("reported error %d = %v, want one matching %v", i, errs[i], want)
				}
			}
		}
		if rv != sc.wantRV {
			t.Errorf("LastSyncResourceVersion() = %q, want %q", rv, sc.wantRV)
		}
		if !lw.allStopped() {
			t.Errorf("Run returned without stopping every watch")
		}
	})
}

func TestListAndWatch(t *testing.T) {
	for _, sc := range []scenario{
		{
			name:    "list then watch from the list's version",
			lists:   []listReply{list("10", "a", "b")},
			watches: []watchReply{openWatch(added("c", "11"), modified("a", "12"), deleted("b", "13"))},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10 b@10]@10", "Add c@11", "Update a@12", "Delete b@13"},
			wantRV:  "13",
		},
		{
			name:    "a closed watch is watched again from the last version, at once",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{closedWatch(added("c", "11"))},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`Watch(rv="11")`,
			},
			wantAt:  []time.Duration{0, 0, 0},
			wantOps: []string{"Replace [a@10]@10", "Add c@11"},
			wantRV:  "11",
		},
		{
			name:    "an event without version takes its object's",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{openWatch(event{Type: reflector.Added, Object: o("c", "11")}, event{Type: reflector.Updated, Object: o("c", "12"), ResourceVersion: "13"})},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10]@10", "Add c@11", "Update c@12"},
			wantRV:  "13",
		},
		{
			name:    "bookmarks advance the version without touching the store",
			caps:    bookmarks,
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{closedWatch(bookmark("15"))},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
				`Watch(rv="15" bookmarks)`,
			},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "15",
		},
		{
			name:  "a watch from no version publishes versions only after a non-Added event",
			lists: []listReply{list("", "a")},
			watches: []watchReply{
				closedWatch(added("b", "5"), added("c", "3")),
				closedWatch(added("d", "4"), modified("a", "7"), added("e", "6")),
			},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="")`,
				`Watch(rv="")`,
				`Watch(rv="6")`,
			},
			wantOps: []string{"Replace [a@]@", "Add b@5", "Add c@3", "Add d@4", "Update a@7", "Add e@6"},
			wantRV:  "6",
		},
	} {
		t.Run(sc.name, sc.test)
	}
}

func TestFailures(t *testing.T) {
	for _, sc := range []scenario{
		{
			name:    "an expired watch that made progress relists at once at the last version",
			lists:   []listReply{list("10", "a", "b"), list("20", "a", "c")},
			watches: []watchReply{openWatch(added("c", "11"), errorEvent(errGone))},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`List(rv="11" limit=0 continue="")`,
				`Watch(rv="20")`,
			},
			wantAt:  []time.Duration{0, 0, 0, 0},
			wantOps: []string{"Replace [a@10 b@10]@10", "Add c@11", "Replace [a@20 c@20]@20"},
			wantRV:  "20",
		},
		{
			name:    "a watch expired straight after the list relists after a backoff",
			lists:   []listReply{list("10", "a"), list("20", "a")},
			watches: []watchReply{failedWatch(errGone)},
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`List(rv="10" limit=0 continue="")`,
				`Watch(rv="20")`,
			},
			wantAt:   []time.Duration{0, 0, 800 * time.Millisecond, 800 * time.Millisecond},
			wantOps:  []string{"Replace [a@10]@10", "Replace [a@20]@20"},
			wantErrs: []error{reflector.ErrExpired},
			wantRV:   "20",
		},
		{
			name:    "a watch whose first event is an expiry relists after a backoff",
			lists:   []listReply{list("10", "a"), list("20", "a")},
			watches: []watchReply{openWatch(errorEvent(errGone))},
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`List(rv="10" limit=0 continue="")`,
				`Watch(rv="20")`,
			},
			wantAt:   []time.Duration{0, 0, 800 * time.Millisecond, 800 * time.Millisecond},
			wantOps:  []string{"Replace [a@10]@10", "Replace [a@20]@20"},
			wantErrs: []error{reflector.ErrExpired},
			wantRV:   "20",
		},
		{
			name:  "an expired list is retried at once for the latest state",
			lists: []listReply{{err: errGone}, list("10", "a")},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`List(rv="" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantAt:  []time.Duration{0, 0, 0},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "10",
		},
		{
			name:  "after expiry lists keep asking for the latest state until one succeeds",
			lists: []listReply{{err: errGone}, {err: errBoom}, list("10", "a")},
			run:   2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`List(rv="" limit=0 continue="")`,
				`List(rv="" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errBoom},
			wantRV:   "10",
		},
		{
			name:  "a failed list is retried after a backoff",
			lists: []listReply{{err: errBoom}, list("10", "a")},
			run:   2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantAt:   []time.Duration{0, 800 * time.Millisecond, 800 * time.Millisecond},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errBoom},
			wantRV:   "10",
		},
		{
			name:    "a failed Watch call is retried as a watch after a backoff",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{failedWatch(errBoom)},
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`Watch(rv="10")`,
			},
			wantAt:   []time.Duration{0, 0, 800 * time.Millisecond},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errBoom},
			wantRV:   "10",
		},
		{
			name:    "a failed stream is retried as a watch from the last version after a backoff",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{openWatch(added("c", "11"), errorEvent(errBoom))},
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`Watch(rv="11")`,
			},
			wantOps:  []string{"Replace [a@10]@10", "Add c@11"},
			wantErrs: []error{errBoom},
			wantRV:   "11",
		},
		{
			name:    "a watch closed at once without events counts as a failure",
			lists:   []listReply{list("10", "a")},
			watches: []watchReply{closedWatch()},
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`Watch(rv="10")`,
			},
			wantAt:   []time.Duration{0, 0, 800 * time.Millisecond},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{reflector.ErrShortWatch},
			wantRV:   "10",
		},
		{
			name:  "a failed Replace is reported and the list retried after a backoff",
			lists: []listReply{list("10", "a"), list("11", "a", "b")},
			fail:  failOnce("Replace"),
			run:   2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="11")`,
			},
			wantOps:  []string{"Replace [a@10]@10", "Replace [a@11 b@11]@11"},
			wantErrs: []error{reflector.ErrStore},
			wantRV:   "11",
		},
		{
			name:    "a refused event is reported and repaired by a relist after a backoff",
			lists:   []listReply{list("10", "a"), list("12", "a", "c")},
			watches: []watchReply{openWatch(added("b", "11"), added("c", "12"))},
			fail:    failOnce("Add c"),
			run:     2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
				`List(rv="11" limit=0 continue="")`,
				`Watch(rv="12")`,
			},
			wantOps:  []string{"Replace [a@10]@10", "Add b@11", "Add c@12", "Replace [a@12 c@12]@12"},
			wantErrs: []error{reflector.ErrStore},
			wantRV:   "12",
		},
	} {
		t.Run(sc.name, sc.test)
	}
}

func TestPagination(t *testing.T) {
	for _, sc := range []scenario{
		{
			name:  "pages are joined into one Replace at the first page's version",
			caps:  pagination,
			lists: []listReply{page("10", "c1", "a", "b"), page("11", "c2", "c"), list("12", "d")},
			wantCalls: []string{
				`List(rv="0" limit=500 continue="")`,
				`List(rv="" limit=500 continue="c1")`,
				`List(rv="" limit=500 continue="c2")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10 b@10 c@11 d@12]@10"},
			wantRV:  "10",
		},
		{
			name:  "PageSize sets the page size",
			caps:  pagination,
			opts:  reflector.Options{Tuning: reflector.Tuning{PageSize: 2}},
			lists: []listReply{list("10", "a")},
			wantCalls: []string{
				`List(rv="0" limit=2 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "10",
		},
		{
			name:  "a negative PageSize disables pagination",
			caps:  pagination,
			opts:  reflector.Options{Tuning: reflector.Tuning{PageSize: -1}},
			lists: []listReply{list("10", "a")},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "10",
		},
		{
			name:  "no pagination without the capability",
			opts:  reflector.Options{Tuning: reflector.Tuning{PageSize: 2}},
			lists: []listReply{list("10", "a")},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "10",
		},
		{
			name:    "a relist at a version is not paginated when the first list was one page",
			caps:    pagination,
			lists:   []listReply{list("10", "a"), list("20", "a", "b")},
			watches: []watchReply{openWatch(added("b", "11"), errorEvent(errGone))},
			wantCalls: []string{
				`List(rv="0" limit=500 continue="")`,
				`Watch(rv="10")`,
				`List(rv="11" limit=0 continue="")`,
				`Watch(rv="20")`,
			},
			wantOps: []string{"Replace [a@10]@10", "Add b@11", "Replace [a@20 b@20]@20"},
			wantRV:  "20",
		},
		{
			name:    "a relist stays paginated when the first list came in pages",
			caps:    pagination,
			lists:   []listReply{page("10", "c1", "a"), list("10", "b"), list("20", "a", "b")},
			watches: []watchReply{openWatch(added("c", "11"), errorEvent(errGone))},
			wantCalls: []string{
				`List(rv="0" limit=500 continue="")`,
				`List(rv="" limit=500 continue="c1")`,
				`Watch(rv="10")`,
				`List(rv="11" limit=500 continue="")`,
				`Watch(rv="20")`,
			},
			wantOps: []string{"Replace [a@10 b@10]@10", "Add c@11", "Replace [a@20 b@20]@20"},
			wantRV:  "20",
		},
		{
			name:    "an explicit PageSize paginates relists at a version",
			caps:    pagination,
			opts:    reflector.Options{Tuning: reflector.Tuning{PageSize: 100}},
			lists:   []listReply{list("10", "a"), list("20", "a")},
			watches: []watchReply{openWatch(added("c", "11"), errorEvent(errGone))},
			wantCalls: []string{
				`List(rv="0" limit=100 continue="")`,
				`Watch(rv="10")`,
				`List(rv="11" limit=100 continue="")`,
				`Watch(rv="20")`,
			},
			wantOps: []string{"Replace [a@10]@10", "Add c@11", "Replace [a@20]@20"},
			wantRV:  "20",
		},
		{
			name:  "an errGone continue token falls back to one unpaginated list",
			caps:  pagination,
			lists: []listReply{page("10", "c1", "a"), {err: errGone}, list("12", "a", "b")},
			wantCalls: []string{
				`List(rv="0" limit=500 continue="")`,
				`List(rv="" limit=500 continue="c1")`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="12")`,
			},
			wantOps: []string{"Replace [a@12 b@12]@12"},
			wantRV:  "12",
		},
		{
			name:  "a source repeating a continue token fails the list",
			caps:  pagination,
			lists: []listReply{page("10", "c1", "a"), page("10", "c1", "b"), list("12", "a")},
			run:   2 * time.Second,
			wantCalls: []string{
				`List(rv="0" limit=500 continue="")`,
				`List(rv="" limit=500 continue="c1")`,
				`List(rv="0" limit=500 continue="")`,
				`Watch(rv="12")`,
			},
			wantOps:  []string{"Replace [a@12]@12"},
			wantErrs: []error{errContaining("repeated continue token")},
			wantRV:   "12",
		},
	} {
		t.Run(sc.name, sc.test)
	}
}

func TestQuietWatchEndIsNotAFailure(t *testing.T) {
	// Only a watch that ends within a second without events is short: one
	// that stayed open longer is watched again at once, silently.
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{list("10", "a")}
		lw.watches = []watchReply{openWatch()}
		rn := start(t, lw, &recStore{}, reflector.Options{})
		time.Sleep(time.Second)
		lw.watch(t, 0).end()
		synctest.Wait()
		rn.stop()
		wantCalls := []string{
			`List(rv="0" limit=0 continue="")`,
			`Watch(rv="10")`,
			`Watch(rv="10")`,
		}
		if diff := cmp.Diff(wantCalls, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]time.Duration{0, 0, time.Second}, lw.Times()); diff != "" {
			t.Errorf("call times mismatch (-want +got):\n%s", diff)
		}
		if errs := rn.Errs(); len(errs) != 0 {
			t.Errorf("reported errors = %v, want none", errs)
		}
	})
}
