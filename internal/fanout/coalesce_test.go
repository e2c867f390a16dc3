package fanout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMerge pins the coalescing rules: the merged notification leaves a
// receiver's view where the two in sequence would.
func TestMerge(t *testing.T) {
	add := func(v int, initial bool) Notification[int] {
		return Notification[int]{Key: "k", Obj: v, Kind: Add, Initial: initial}
	}
	upd := func(old, v int) Notification[int] {
		return Notification[int]{Key: "k", Old: old, Obj: v, Kind: Update}
	}
	del := func(known, last int) Notification[int] {
		return Notification[int]{Key: "k", Old: known, Obj: last, Kind: Delete}
	}
	tests := []struct {
		name        string
		n, next     Notification[int]
		want        Notification[int]
		keep        bool
		dropInitial bool
	}{
		{name: "add then update is an add of the new state", n: add(1, true), next: upd(1, 2), want: add(2, true), keep: true},
		{name: "add then delete vanish", n: add(1, false), next: del(1, 1), keep: false},
		{name: "initial add then delete vanish, releasing the sync count", n: add(1, true), next: del(1, 1), keep: false, dropInitial: true},
		{name: "updates span from the oldest to the newest state", n: upd(1, 2), next: upd(2, 3), want: upd(1, 3), keep: true},
		{name: "update then delete removes the state the handler knows", n: upd(1, 2), next: del(2, 3), want: del(1, 3), keep: true},
		{name: "delete then re-create is an update from the known state", n: del(1, 2), next: add(5, false), want: upd(1, 5), keep: true},
		{
			name: "delete then initial re-create releases the sync count", n: del(1, 2), next: add(5, true),
			want: upd(1, 5), keep: true, dropInitial: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, keep, dropped := merge(tt.n, tt.next)
			if keep != tt.keep || dropped != tt.dropInitial {
				t.Errorf("merge() keep %t, dropped initial %t; want %t, %t", keep, dropped, tt.keep, tt.dropInitial)
			}
			if tt.keep {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("merge() mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}
