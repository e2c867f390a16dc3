package fanout_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/internal/fanout"
)

func TestResyncPeriod(t *testing.T) {
	tests := []struct {
		name             string
		requested, check time.Duration
		want             time.Duration
	}{
		{"never requested", 0, time.Minute, 0},
		{"never checked", time.Minute, 0, 0},
		{"longer than the check", time.Hour, time.Minute, time.Hour},
		{"raised to the check", time.Second, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		l := fanout.NewListener(func(*fanout.Notification[int]) {}, func(fanout.Panic) {}, fanout.Options{})
		l.SetResync(tt.requested, tt.check)
		if got := l.ResyncPeriod(); got != tt.want {
			t.Errorf("%s: SetResync(%v, %v), ResyncPeriod() = %v, want %v", tt.name, tt.requested, tt.check, got, tt.want)
		}
	}
}

// A listener is due at the first check one period in effect after
// SetResync, and then one period after the last check that found it due;
// Push passes resync notifications only while it is due.
func TestResyncSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReceiver(true)
		l := start(t, r, fanout.Options{})
		l.SetResync(3*time.Second, 2*time.Second)
		var dues []bool
		var got []string
		for range 6 {
			time.Sleep(2 * time.Second)
			dues = append(dues, l.CheckResync(time.Now()))
			l.Push([]fanout.Notification[int]{resync("k", 1)})
			synctest.Wait()
			got = append(got, r.take()...)
		}
		// Due at 4s (3s elapsed), 8s (4s after 4s), 12s.
		if diff := cmp.Diff([]bool{false, true, false, true, false, true}, dues); diff != "" {
			t.Errorf("CheckResync every 2s mismatch (-want +got):\n%s", diff)
		}
		if len(got) != 3 {
			t.Errorf("%d resyncs delivered, want 3: %q", len(got), got)
		}

		// A shorter check period applies to the period in effect; the
		// next due time stays.
		l.SetResync(time.Second, 3*time.Second)
		l.SetResyncCheck(time.Second)
		if got := l.ResyncPeriod(); got != time.Second {
			t.Errorf("ResyncPeriod() = %v after SetResyncCheck(1s), want 1s", got)
		}
		var dues2 []bool
		for range 4 {
			time.Sleep(time.Second)
			dues2 = append(dues2, l.CheckResync(time.Now()))
		}
		// Due 3s after SetResync, then every second.
		if diff := cmp.Diff([]bool{false, false, true, true}, dues2); diff != "" {
			t.Errorf("CheckResync every 1s after the change mismatch (-want +got):\n%s", diff)
		}
	})
}
