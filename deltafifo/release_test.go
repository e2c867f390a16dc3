package deltafifo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/deltafifo"
)

// TestReleasePolicyDecisions checks the policy's decisions alone, for
// what TestReleasePolicy cannot reach through a FIFO: keep 0.
func TestReleasePolicyDecisions(t *testing.T) {
	tests := []struct {
		name         string
		keep         int
		sizes, peaks []int
		want         []bool
	}{
		{
			name:  "a burst is released at the drain that ends it",
			keep:  10,
			sizes: []int{100},
			peaks: []int{100},
			want:  []bool{true},
		},
		{
			name:  "small FIFOs are kept",
			keep:  1024,
			sizes: []int{1000},
			peaks: []int{1000},
			want:  []bool{false},
		},
		{
			name:  "keep 0 releases however few slots",
			keep:  0,
			sizes: []int{3},
			peaks: []int{3},
			want:  []bool{true},
		},
		{
			name:  "traffic that needed half the slots keeps them",
			keep:  10,
			sizes: []int{100, 100},
			peaks: []int{50, 50},
			want:  []bool{true, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := deltafifo.ReleaseDecisions(tt.keep, tt.sizes, tt.peaks)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
