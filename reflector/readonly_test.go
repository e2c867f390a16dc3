package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/reflector"
)

// Options.ReadOnly reaches every List and Watch call, the pages of a
// paginated list and streaming lists included, and only those of a
// reflector that has it.
func TestReadOnlyReachesEveryCall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		caps     reflector.Capabilities
		lists    []listReply
		watches  []watchReply
		readOnly bool
		want     []string
	}{
		{
			name: "paginated list and watch", caps: pagination, readOnly: true,
			lists: []listReply{page("10", "next", "a"), page("10", "", "b")},
			want: []string{
				`List(rv="0" limit=500 continue="" readonly)`, `List(rv="" limit=500 continue="next" readonly)`,
				`Watch(rv="10" readonly)`,
			},
		},
		{
			name: "streaming list", caps: streaming, readOnly: true,
			watches: []watchReply{openWatch(added("a", "1"))},
			want:    []string{`Watch(rv="" bookmarks initial readonly)`},
		},
		{
			name: "not read-only", caps: pagination,
			lists: []listReply{page("10", "next", "a"), page("10", "", "b")},
			want:  []string{`List(rv="0" limit=500 continue="")`, `List(rv="" limit=500 continue="next")`, `Watch(rv="10")`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(tc.caps)
				lw.lists, lw.watches = tc.lists, tc.watches
				rn := start(t, lw, &recStore{}, reflector.Options{ResyncPeriod: time.Minute, ReadOnly: tc.readOnly})
				synctest.Wait()
				rn.cancel()
				<-rn.done
				if diff := cmp.Diff(tc.want, lw.Calls()); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}
