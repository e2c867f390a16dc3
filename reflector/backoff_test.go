package reflector_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/reflector"
)

// constRand returns a source of randomness that always returns c.
func constRand(c float64) func(*reflector.Reflector[*obj]) {
	return func(r *reflector.Reflector[*obj]) { r.SetRand(func() float64 { return c }) }
}

// gaps returns the time between consecutive calls.
func gaps(at []time.Duration) []time.Duration {
	var g []time.Duration
	for i := 1; i < len(at); i++ {
		g = append(g, at[i]-at[i-1])
	}
	return g
}

// approxDuration makes cmp equate durations within a microsecond of each
// other (delays are computed in floating point).
var approxDuration = cmp.Comparer(func(a, b time.Duration) bool {
	return a-b < time.Microsecond && b-a < time.Microsecond
})

// wantDelays returns the first n delays of an outage in which every retry
// fails, by the rule Backoff documents: (factor-1) times the outage so
// far, within [initial, max], stretched by jitter (what the source of
// randomness returns, times the configured Jitter).
func wantDelays(initial, maxDelay time.Duration, factor, jitter float64, n int) []time.Duration {
	var ds []time.Duration
	var outage time.Duration
	for range n {
		base := min(max(time.Duration(float64(outage)*(factor-1)), initial), maxDelay)
		d := time.Duration(float64(base) * (1 + jitter))
		ds = append(ds, d)
		outage += d
	}
	return ds
}

func TestBackoffSequence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jitter float64 // what the source of randomness returns
	}{
		{"no jitter drawn", 0},
		{"half jitter", 0.5},
		{"almost full jitter", 0.999},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(pagination)
				lw.lists = []listReply{{err: errBoom}}
				rn := start(t, lw, &recStore{}, reflector.Options{}, constRand(tc.jitter))
				time.Sleep(15 * time.Minute)
				synctest.Wait()
				rn.stop()
				got := gaps(lw.Times())
				want := wantDelays(800*time.Millisecond, 30*time.Second, 1.1, tc.jitter, len(got))
				if diff := cmp.Diff(want, got, approxDuration); diff != "" {
					t.Errorf("delays between failing lists mismatch (-want +got):\n%s", diff)
				}
				if n := len(rn.Errs()); n != len(got)+1 {
					t.Errorf("%d errors reported for %d failed lists", n, len(got)+1)
				}
			})
		})
	}
}

// TestBackoffDefaults checks the figures the documentation gives for the
// default backoff against a source that keeps failing.
func TestBackoffDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(pagination)
		lw.lists = []listReply{{err: errBoom}}
		rn := start(t, lw, &recStore{}, reflector.Options{}, constRand(0))
		time.Sleep(15 * time.Minute)
		synctest.Wait()
		rn.stop()
		at := lw.Times()
		for i, g := range gaps(at) {
			outage := at[i] - at[0]
			switch {
			case outage < 8*time.Second && g != 800*time.Millisecond:
				t.Errorf("delay after %v of outage = %v, want 800ms through the first 8s", outage, g)
			case outage >= 8*time.Second && outage < 5*time.Minute && (g < outage/10-time.Microsecond || g > outage/10+time.Microsecond):
				t.Errorf("delay after %v of outage = %v, want 10%% of it", outage, g)
			case outage >= 5*time.Minute && g != 30*time.Second:
				t.Errorf("delay after %v of outage = %v, want the 30s cap", outage, g)
			}
		}
		if n := slices.IndexFunc(at, func(d time.Duration) bool { return d >= 8*time.Second }); n != 10 {
			t.Errorf("%d attempts in the first 8s, want 10", n)
		}
	})
}

func TestBackoffJitterBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(pagination)
		lw.lists = []listReply{{err: errBoom}}
		rn := start(t, lw, &recStore{}, reflector.Options{})
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		rn.stop()
		at := lw.Times()
		for i, g := range gaps(at) {
			base := min(max((at[i]-at[0])/10, 800*time.Millisecond), 30*time.Second)
			if g < base || g >= 2*base {
				t.Errorf("delay %d = %v, want in [%v, %v)", i, g, base, 2*base)
			}
		}
	})
}

func TestBackoffOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(pagination)
		lw.lists = []listReply{{err: errBoom}}
		opts := reflector.Options{Tuning: reflector.Tuning{Backoff: reflector.Backoff{
			Initial: time.Second, Max: 5 * time.Second, Factor: 3, Jitter: -1,
		}}}
		rn := start(t, lw, &recStore{}, opts, constRand(0.7))
		time.Sleep(20 * time.Second)
		synctest.Wait()
		rn.stop()
		// Outage 0s: 1s (Initial); 1s: 2s (twice the outage); 3s: 6s, capped.
		want := []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 5 * time.Second}
		got := gaps(lw.Times())
		if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
			t.Errorf("delays mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestBackoffHealth checks what ends an outage, so that the next failure
// waits only Initial: a watch that delivers an event, or that stays open
// for a second; not a watch that fails or closes within its first second
// without an event, nor a successful list.
func TestBackoffHealth(t *testing.T) {
	const fails = 20 // failed watches first: 8s at 0.8s, then growing delays
	for _, tc := range []struct {
		name   string
		probe  watchReply    // the watch after the failures
		failIn time.Duration // if set, the probe fails this long after it opened
		reset  bool          // whether the probe ends the outage
	}{
		{name: "a watch event ends the outage", probe: openWatch(added("b", "11"), errorEvent(errBoom)), reset: true},
		{name: "a bookmark ends the outage", probe: openWatch(bookmark("11"), errorEvent(errBoom)), reset: true},
		{name: "a watch open for a second ends the outage", probe: openWatch(), failIn: time.Second, reset: true},
		{name: "a watch failing within its first second does not", probe: openWatch(), failIn: time.Second - time.Millisecond},
		{name: "a watch failing at once does not", probe: openWatch(errorEvent(errBoom))},
		{name: "a watch closed at once without events does not", probe: closedWatch()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(reflector.Capabilities{Bookmarks: true})
				lw.lists = []listReply{list("10", "a")}
				for range fails {
					lw.watches = append(lw.watches, failedWatch(errBoom))
				}
				lw.watches = append(lw.watches, tc.probe)
				rn := start(t, lw, &recStore{}, reflector.Options{}, constRand(0))
				defer rn.stop()
				var outage time.Duration // until the probe opens
				for _, d := range wantDelays(800*time.Millisecond, 30*time.Second, 1.1, 0, fails) {
					outage += d
				}
				time.Sleep(outage)
				synctest.Wait()
				at := lw.Times()
				if len(at) != fails+2 { // the list, the failures, the probe
					t.Fatalf("%d calls after %v of failures, want %d: %q", len(at), outage, fails+2, lw.Calls())
				}
				outageStart, failed := at[1], at[fails+1]
				if tc.failIn > 0 {
					time.Sleep(failed + tc.failIn - time.Since(lw.start))
					failed = time.Since(lw.start)
					lw.watch(t, 0).send(t, errorEvent(errBoom))
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				at = lw.Times()
				got := at[fails+2] - failed
				want := 800 * time.Millisecond
				if !tc.reset {
					want = (failed - outageStart) / 10
				}
				if got < want-time.Microsecond || got > want+time.Microsecond {
					t.Errorf("delay after the probe's failure = %v, want %v", got, want)
				}
			})
		})
	}
}

// A successful list does not end an outage: a source whose watches fail
// right after every list is not relisted at the shortest delay forever.
func TestBackoffListIsNotHealth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(reflector.Capabilities{})
		lw.lists = []listReply{{err: errBoom}}
		for range 24 {
			lw.lists = append(lw.lists, listReply{err: errBoom})
		}
		lw.lists = append(lw.lists, list("10", "a"))
		lw.watches = []watchReply{failedWatch(errBoom)}
		rn := start(t, lw, &recStore{}, reflector.Options{}, constRand(0))
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		rn.stop()
		calls, at := lw.Calls(), lw.Times()
		i := slices.IndexFunc(calls, func(c string) bool { return strings.HasPrefix(c, "Watch") })
		if i < 0 || i+1 >= len(at) {
			t.Fatalf("calls %q: want a watch after the lists, and a retry", calls)
		}
		got, want := at[i+1]-at[i], (at[i]-at[0])/10
		if want <= 800*time.Millisecond {
			t.Fatalf("outage of %v before the watch: too short to tell", at[i]-at[0])
		}
		if got < want-time.Microsecond || got > want+time.Microsecond {
			t.Errorf("delay after the failed watch = %v, want %v (10%% of the outage that began with the first failed list)", got, want)
		}
	})
}

func TestWatchTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		min  time.Duration
		rand float64
		want time.Duration
	}{
		{"default, low draw", 0, 0, 5 * time.Minute},
		{"default, high draw", 0, 0.9, 9*time.Minute + 30*time.Second},
		{"below the default is ignored", time.Minute, 0.5, 7*time.Minute + 30*time.Second},
		{"above the default raises the range", 20 * time.Minute, 0.5, 30 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(reflector.Capabilities{})
				lw.lists = []listReply{list("10", "a")}
				rn := start(t, lw, &recStore{}, reflector.Options{Tuning: reflector.Tuning{MinWatchTimeout: tc.min}}, constRand(tc.rand))
				synctest.Wait()
				rn.stop()
				opts := lw.WatchOptions()
				if len(opts) != 1 || opts[0].Timeout != tc.want {
					t.Errorf("watch options = %+v, want one watch with Timeout %v", opts, tc.want)
				}
			})
		})
	}
}
