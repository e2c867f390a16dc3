package fanout_test

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/internal/fanout"
)

// A panicking delivery is reported with the notification's key and kind,
// the formatted value and a stack, and the next notification follows.
func TestPanicIsReportedAndSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		var panics []fanout.Panic
		l := fanout.NewListener(func(n *fanout.Notification[int]) {
			if n.Key == "bad" {
				panic(n.Obj)
			}
			got = append(got, format(n))
		}, func(p fanout.Panic) { panics = append(panics, p) }, fanout.Options{})
		var wg sync.WaitGroup
		wg.Go(l.Run)
		l.Push([]fanout.Notification[int]{add("a", 1), update("bad", 1, 42), add("b", 1)})
		synctest.Wait()
		l.Stop()
		wg.Wait()

		if diff := cmp.Diff([]string{"add a 1", "add b 1"}, got); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
		if len(panics) != 1 {
			t.Fatalf("%d panics reported, want 1", len(panics))
		}
		p := panics[0]
		if p.Key != "bad" || p.Kind != fanout.Update || p.Value != "42" || !strings.Contains(string(p.Stack), "TestPanicIsReportedAndSkipped") {
			t.Errorf("reported Panic{Key: %q, Kind: %d, Value: %q} with stack:\n%s", p.Key, p.Kind, p.Value, p.Stack)
		}
		if s := l.Stats(); s.Delivered != 3 || s.Panics != 1 {
			t.Errorf("Stats() = %+v, want 3 delivered, 1 panic", s)
		}
	})
}

// Panics anywhere in a long batch, first and last included and on both
// sides of a segment boundary, skip only the notification that panicked.
func TestPanicsAcrossABatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 600
		bad := map[int]bool{0: true, 1: true, 255: true, 256: true, 300: true, n - 1: true}
		var got []int
		l := fanout.NewListener(func(n *fanout.Notification[int]) {
			if bad[n.Obj] {
				panic("bad")
			}
			got = append(got, n.Obj)
		}, func(fanout.Panic) {}, fanout.Options{})
		var want []int
		ns := make([]fanout.Notification[int], n)
		for i := range ns {
			ns[i] = add("k", i)
			if !bad[i] {
				want = append(want, i)
			}
		}
		var wg sync.WaitGroup
		wg.Go(l.Run)
		l.Push(ns)
		synctest.Wait()
		l.Stop()
		wg.Wait()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
		if s := l.Stats(); s.Delivered != n || s.Panics != uint64(len(bad)) || s.Pending != 0 {
			t.Errorf("Stats() = %+v, want %d delivered, %d panics, nothing pending", s, n, len(bad))
		}
	})
}

// Done is closed by Stop when Run never started, and a later Run returns
// at once; a second Run returns at once too.
func TestRunAndStopInAnyOrder(t *testing.T) {
	l := fanout.NewListener(func(*fanout.Notification[int]) {}, func(fanout.Panic) {}, fanout.Options{})
	l.Push([]fanout.Notification[int]{add("a", 1)})
	if closed(l.Done()) {
		t.Fatal("Done closed before Run and Stop")
	}
	l.Stop()
	l.Stop()
	if !closed(l.Done()) {
		t.Fatal("Done not closed by Stop before Run")
	}
	l.Run()
	if s := l.Stats(); s.Delivered != 0 || s.Pending != 0 {
		t.Errorf("Stats() = %+v after Stop, want nothing pending or delivered", s)
	}

	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(true)
		l := start(t, r, fanout.Options{})
		synctest.Wait()
		l.Run() // returns at once: the first Run is delivering
		l.Push([]fanout.Notification[int]{add("a", 1)})
		synctest.Wait()
		if diff := cmp.Diff([]string{"add a 1"}, r.take()); diff != "" {
			t.Errorf("delivered mismatch (-want +got):\n%s", diff)
		}
	})
}
