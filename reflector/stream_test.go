package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/reflector"
)

func TestStreamingList(t *testing.T) {
	for _, sc := range []scenario{
		{
			name:    "initial events are collected into one Replace at the end bookmark, then the watch goes on",
			caps:    streaming,
			watches: []watchReply{openWatch(added("a", "5"), added("b", "7"), endBookmark("9"), modified("a", "10"))},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
			},
			wantOps: []string{"Replace [a@5 b@7]@9", "Update a@10"},
			wantRV:  "10",
		},
		{
			name:  "DisableStreamingList lists instead",
			caps:  streaming,
			opts:  reflector.Options{Tuning: reflector.Tuning{DisableStreamingList: true}},
			lists: []listReply{list("10", "a")},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps: []string{"Replace [a@10]@10"},
			wantRV:  "10",
		},
		{
			name: "Updated and Deleted among the initial events edit the collected list",
			caps: streaming,
			watches: []watchReply{openWatch(
				added("a", "1"), added("b", "2"), added("a", "3"), modified("a", "4"), deleted("b", "5"),
				deleted("x", "6"), modified("d", "7"), added("c", "8"), endBookmark("9"))},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
			},
			wantOps: []string{"Replace [a@4 d@7 c@8]@9"},
			wantRV:  "9",
		},
		{
			name:  "a failed streaming Watch call falls back to a list",
			caps:  streaming,
			lists: []listReply{list("10", "a")},
			watches: []watchReply{
				failedWatch(errBoom),
			},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errBoom},
			wantRV:   "10",
		},
		{
			name:  "a stream that ends before its end bookmark falls back to a list",
			caps:  streaming,
			lists: []listReply{list("10", "a")},
			watches: []watchReply{
				closedWatch(added("a", "5")),
			},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errContaining("before the end of the initial events")},
			wantRV:   "10",
		},
		{
			name:  "an expired stream falls back to a list of the latest state",
			caps:  streaming,
			lists: []listReply{list("10", "a")},
			watches: []watchReply{
				openWatch(added("a", "5"), errorEvent(errGone)),
			},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`List(rv="" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{reflector.ErrExpired},
			wantRV:   "10",
		},
		{
			name:  "an end bookmark without a version falls back to a list",
			caps:  streaming,
			lists: []listReply{list("10", "a")},
			watches: []watchReply{
				openWatch(added("a", "5"), endBookmark("")),
			},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{reflector.ErrMalformed},
			wantRV:   "10",
		},
		{
			name: "a relist after expiry streams from the last version",
			caps: streaming,
			watches: []watchReply{
				openWatch(added("a", "1"), endBookmark("5"), modified("a", "6"), errorEvent(errGone)),
				openWatch(added("a", "6"), endBookmark("7")),
			},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`Watch(rv="6" bookmarks initial)`,
			},
			wantOps: []string{"Replace [a@1]@5", "Update a@6", "Replace [a@6]@7"},
			wantRV:  "7",
		},
		{
			name:  "without an idle timeout, a stream that never ends its initial events is abandoned for a list after the watch timeout",
			caps:  streaming,
			opts:  reflector.Options{Tuning: reflector.Tuning{StreamingListIdleTimeout: -1}},
			lists: []listReply{list("10", "a")},
			watches: []watchReply{
				openWatch(added("a", "5")),
			},
			run: 10 * time.Minute,
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10" bookmarks)`,
			},
			wantOps:  []string{"Replace [a@10]@10"},
			wantErrs: []error{errContaining("no end of the initial events")},
			wantRV:   "10",
		},
	} {
		t.Run(sc.name, sc.test)
	}
}

func TestNoStreamingWithoutCapability(t *testing.T) {
	// The source's watch streams an object and never sends the end
	// bookmark: the kind of source that hangs client-go's sync when it
	// streams by default. Without StreamingList in its capabilities the
	// reflector never asks it to stream: it lists, and the store is filled
	// at once.
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(bookmarks)
		lw.lists = []listReply{list("10", "a")}
		lw.watches = []watchReply{openWatch(added("b", "11"))}
		store := &recStore{}
		rn := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		rn.stop()
		wantCalls := []string{
			`List(rv="0" limit=0 continue="")`,
			`Watch(rv="10" bookmarks)`,
		}
		if diff := cmp.Diff(wantCalls, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Replace [a@10]@10", "Add b@11"}, store.Ops()); diff != "" {
			t.Errorf("store calls mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestMalformed(t *testing.T) {
	for _, sc := range []scenario{
		{
			name:  "malformed events are reported and skipped without ending the watch",
			lists: []listReply{list("10", "a")},
			watches: []watchReply{openWatch(
				event{Type: reflector.Added},                        // nil object
				event{Type: reflector.Updated, Object: o("", "11")}, // no name
				event{Type: reflector.Deleted, ResourceVersion: "12"},
				event{Type: reflector.EventType(42), Object: o("b", "13")},
				event{Type: 0, Object: o("b", "13")},
				bookmark(""),
				added("c", "14"),
			)},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps: []string{"Replace [a@10]@10", "Add c@14"},
			wantErrs: []error{
				reflector.ErrMalformed, reflector.ErrMalformed, reflector.ErrMalformed,
				reflector.ErrMalformed, reflector.ErrMalformed, reflector.ErrMalformed,
			},
			wantRV: "14",
		},
		{
			name: "malformed listed items are skipped and reported once",
			lists: []listReply{{res: reflector.ListResult[*obj]{
				Items:           []*obj{o("a", "1"), nil, o("", "2"), o("b", "3"), nil},
				ResourceVersion: "10",
			}}},
			wantCalls: []string{
				`List(rv="0" limit=0 continue="")`,
				`Watch(rv="10")`,
			},
			wantOps:  []string{"Replace [a@1 b@3]@10"},
			wantErrs: []error{errContaining("skipped 3 of 5 listed items")},
			wantRV:   "10",
		},
		{
			name:    "malformed initial events of a stream are skipped",
			caps:    streaming,
			watches: []watchReply{openWatch(added("a", "1"), event{Type: reflector.Added}, endBookmark("5"))},
			wantCalls: []string{
				`Watch(rv="" bookmarks initial)`,
			},
			wantOps:  []string{"Replace [a@1]@5"},
			wantErrs: []error{reflector.ErrMalformed},
			wantRV:   "5",
		},
	} {
		t.Run(sc.name, sc.test)
	}
}
