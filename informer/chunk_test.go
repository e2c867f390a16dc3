package informer

import "testing"

func TestChunkRecycle(t *testing.T) {
	tests := []struct {
		name      string
		capacity  int
		lens      []int // lengths of the chunks delivered in turn
		wantKept  bool
		wantSlack int
	}{
		{"steady stream keeps its memory", keepChunk, []int{keepChunk / 2, keepChunk / 2}, true, 0},
		{"burst larger than keepChunk is dropped", keepChunk * 2, []int{keepChunk * 2}, false, 0},
		{"small chunk is kept however idle", smallChunk, make([]int, 2*slackChunks), true, 2 * slackChunks},
		{"large chunk mostly unused is dropped", keepChunk, make([]int, slackChunks), false, 0},
		{"large chunk used now and then is kept", keepChunk, append(make([]int, slackChunks-1), keepChunk), true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := chunk[int]{ns: make([]notification[int], 0, tc.capacity)}
			for _, n := range tc.lens {
				c.ns = c.ns[:n]
				c.recycle()
				if len(c.ns) != 0 {
					t.Fatalf("recycle() left %d notifications", len(c.ns))
				}
			}
			if kept := cap(c.ns) == tc.capacity; kept != tc.wantKept {
				t.Errorf("recycle() kept the memory = %v, want %v (cap %d)", kept, tc.wantKept, cap(c.ns))
			}
			if c.slack != tc.wantSlack {
				t.Errorf("slack = %d, want %d", c.slack, tc.wantSlack)
			}
		})
	}
}
