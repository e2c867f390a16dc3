package shard

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want members
	}{
		{"", nil},
		{"a", members{"a"}},
		{"c,a,b", members{"a", "b", "c"}},
		{"b,a,b", members{"a", "b"}},
	} {
		got := parseMembers(tc.in)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("parseMembers(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
		if back := parseMembers(got.String()); !cmp.Equal(back, got) {
			t.Errorf("parseMembers(%q) = %v, want %v back", got.String(), back, got)
		}
	}
}

// TestOwnerRendezvous: a member that joins takes keys only for itself, a
// member that leaves gives away only its own keys, the keys spread about
// evenly, and the empty set owns nothing.
func TestOwnerRendezvous(t *testing.T) {
	const n = 3000
	three, four := members{"a", "b", "c"}, members{"a", "b", "c", "d"}
	count := map[string]int{}
	for i := range n {
		k := fmt.Sprintf("ns/obj-%d", i)
		o3, o4 := three.owner(k), four.owner(k)
		if o4 != o3 && o4 != "d" {
			t.Fatalf("%s moved from %s to %s when d joined", k, o3, o4)
		}
		count[o3]++
	}
	for _, id := range three {
		if c := count[id]; c < n/3*8/10 || c > n/3*12/10 {
			t.Errorf("%s owns %d of %d keys, want within 20%% of a third", id, c, n)
		}
	}
	if o := members(nil).owner("k"); o != "" {
		t.Errorf("empty set owns k: %q", o)
	}
	if got := (members{"a", "c"}).with("b"); !cmp.Equal(got, members{"a", "b", "c"}) {
		t.Errorf("with = %v", got)
	}
}
