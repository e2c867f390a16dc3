package fanout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQueuePush(t *testing.T) {
	for _, n := range []int{0, 1, segmentLen - 1, segmentLen, segmentLen + 1, 3*segmentLen + 7} {
		var q queue[int]
		var p spares[int]
		for i := range n {
			q.push(Notification[int]{Obj: i}, &p)
		}
		got := []int{}
		segs := 0
		for s := q.head; s != nil; s = s.next {
			segs++
			for _, x := range s.ns[:s.n] {
				got = append(got, x.Obj)
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("push %d: contents mismatch (-want +got):\n%s", n, diff)
		}
		if q.len != n {
			t.Errorf("push %d: len = %d", n, q.len)
		}
		if wantSegs := (n + segmentLen - 1) / segmentLen; segs != wantSegs {
			t.Errorf("push %d: %d segments, want %d", n, segs, wantSegs)
		}
	}
}

// list returns a list of n empty segments.
func list(n int) *segment[int] {
	var head *segment[int]
	for range n {
		head = &segment[int]{next: head}
	}
	return head
}

func TestSparesGive(t *testing.T) {
	tests := []struct {
		name  string
		spare int // spares before
		give  int // segments given back
		used  int // segments the delivered chunk needed
		want  int
	}{
		{"steady stream keeps what it needs", 3, 4, 4, 7},
		{"a burst keeps at most maxSpares", 0, maxSpares + 20, maxSpares + 20, maxSpares},
		{"after a burst, one spare is dropped per small delivery", maxSpares, 1, 1, maxSpares - 1},
		{"decay stops at twice the need", 5, 1, 2, 5},
		{"nothing given, nothing needed", 2, 0, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := spares[int]{list: list(tc.spare), n: tc.spare}
			p.give(list(tc.give), tc.used)
			count := 0
			for s := p.list; s != nil; s = s.next {
				count++
			}
			if p.n != tc.want || count != tc.want {
				t.Errorf("give(%d segments, used %d) with %d spare: n = %d, list holds %d, want %d", tc.give, tc.used, tc.spare, p.n, count, tc.want)
			}
			for range tc.want + 1 {
				if s := p.get(); s == nil || s.next != nil || s.n != 0 {
					t.Fatalf("get() = %+v, want an unlinked empty segment", s)
				}
			}
			if p.n != 0 || p.list != nil {
				t.Errorf("after taking every spare and one more: n = %d, list = %p", p.n, p.list)
			}
		})
	}
}

// A chunk spanning several segments is delivered in order, its segments
// are kept for the next pushes, and nothing is allocated once they are.
func TestListenerReusesSegments(t *testing.T) {
	const n = 3*segmentLen + 5
	var got []int
	l := NewListener(func(n *Notification[int]) { got = append(got, n.Obj) }, failOnPanic(t), Options{})
	ns := make([]Notification[int], n)
	for i := range ns {
		ns[i] = Notification[int]{Key: "k", Obj: i, Kind: Add}
	}
	var chunk queue[int]
	round := func() {
		l.Push(ns)
		if !l.take(&chunk) {
			t.Fatal("take() = false on a running listener")
		}
		l.deliverChunk(&chunk)
	}
	round()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("delivered mismatch (-want +got):\n%s", diff)
	}
	if l.emptiedSegs != 4 || chunk.len != 0 {
		t.Fatalf("after delivery: %d emptied segments, chunk len %d; want 4 and 0", l.emptiedSegs, chunk.len)
	}
	round()                    // gives the 4 segments back, then reuses them
	got = make([]int, 0, 12*n) // AllocsPerRun's 11 rounds
	if allocs := testing.AllocsPerRun(10, round); allocs != 0 {
		t.Errorf("push, take and deliver of %d notifications allocated %v times, want 0", n, allocs)
	}
	if s := l.Stats(); s.Pending != 0 || s.Delivered != 13*n {
		t.Errorf("Stats() = %+v, want nothing pending and %d delivered", s, 13*n)
	}
}
