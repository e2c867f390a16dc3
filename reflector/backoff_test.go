package reflector_test

import (
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

// defaultBases are client-go's backoff delays before jitter.
var defaultBases = []time.Duration{
	800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
	12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second, 30 * time.Second,
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
				time.Sleep(6 * time.Minute)
				synctest.Wait()
				rn.stop()
				var want []time.Duration
				for _, b := range defaultBases {
					want = append(want, time.Duration(float64(b)*(1+tc.jitter)))
				}
				got := gaps(lw.Times())
				if len(got) < len(want) {
					t.Fatalf("%d lists in 6 minutes, want at least %d", len(got)+1, len(want)+1)
				}
				if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
					t.Errorf("delays between failing lists mismatch (-want +got):\n%s", diff)
				}
				if n := len(rn.Errs()); n != len(got)+1 {
					t.Errorf("%d errors reported for %d failed lists", n, len(got)+1)
				}
			})
		})
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(pagination)
		lw.lists = []listReply{{err: errBoom}}
		rn := start(t, lw, &recStore{}, reflector.Options{})
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		rn.stop()
		for i, g := range gaps(lw.Times()) {
			base := defaultBases[min(i, len(defaultBases)-1)]
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
		opts := reflector.Options{Backoff: reflector.Backoff{
			Initial: time.Second, Max: 5 * time.Second, Factor: 3, Jitter: -1,
		}}
		rn := start(t, lw, &recStore{}, opts, constRand(0.7))
		time.Sleep(20 * time.Second)
		synctest.Wait()
		rn.stop()
		want := []time.Duration{time.Second, 3 * time.Second, 5 * time.Second, 5 * time.Second}
		got := gaps(lw.Times())
		if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
			t.Errorf("delays mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestBackoffReset(t *testing.T) {
	for _, tc := range []struct {
		name    string
		healthy time.Duration // how long the watch works before failing
		want    time.Duration // the delay after that failure
	}{
		{"resets after two minutes of health", 2 * time.Minute, 800 * time.Millisecond},
		{"keeps growing after less", 2*time.Minute - time.Second, 25600 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(reflector.Capabilities{})
				lw.lists = []listReply{list("10", "a")}
				lw.watches = []watchReply{
					failedWatch(errBoom), failedWatch(errBoom), failedWatch(errBoom),
					failedWatch(errBoom), failedWatch(errBoom), openWatch(),
				}
				rn := start(t, lw, &recStore{}, reflector.Options{}, constRand(0))
				// Five failures: 0.8 + 1.6 + 3.2 + 6.4 + 12.8 s of backoff.
				time.Sleep(24800 * time.Millisecond)
				synctest.Wait()
				if n := len(lw.Calls()); n != 7 {
					t.Fatalf("after the five failures, %d calls, want 7: %q", n, lw.Calls())
				}
				time.Sleep(tc.healthy)
				failed := time.Since(lw.start)
				lw.watch(t, 0).send(t, errorEvent(errBoom))
				time.Sleep(time.Minute)
				synctest.Wait()
				rn.stop()
				at := lw.Times()
				if got := at[7] - failed; got != tc.want {
					t.Errorf("delay after the failure = %v, want %v", got, tc.want)
				}
			})
		})
	}
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
				rn := start(t, lw, &recStore{}, reflector.Options{MinWatchTimeout: tc.min}, constRand(tc.rand))
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
