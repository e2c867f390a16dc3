package worklog_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/kube/internal/worklog"
)

// TestLog: overlapping processings of a key by two replicas are
// reported, successive ones and other keys are not, and the queries see
// the ended spans.
func TestLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ends := 0
		l := worklog.New(func() { ends++ })
		t0 := time.Now()
		a := l.Begin("a", "k1")
		time.Sleep(time.Second)
		b := l.Begin("b", "k1") // overlaps a
		l.End(a)
		l.End(b)
		c := l.Begin("c", "k1") // after both
		d := l.Begin("a", "k2")
		l.End(c)
		l.End(d)
		if got := len(l.Overlaps()); got != 1 || ends != 4 {
			t.Errorf("%d overlaps and %d ends, want 1 and 4: %q", got, ends, l.Overlaps())
		}
		if diff := cmp.Diff([]string{"k2"}, l.LastBy("a")); diff != "" {
			t.Errorf("LastBy(a) mismatch (-want +got):\n%s", diff)
		}
		notA := func(r string) bool { return r != "a" }
		got := worklog.Waits(l.FirstStarts([]string{"k1", "k2"}, notA, t0), t0)
		if diff := cmp.Diff([]time.Duration{time.Second}, got); diff != "" {
			t.Errorf("Waits(FirstStarts) mismatch (-want +got):\n%s", diff)
		}
	})
}
