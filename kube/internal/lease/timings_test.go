package lease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/kube/internal/lease"
)

var errInvalid = errors.New("invalid")

func TestWithDefaults(t *testing.T) {
	defaults := lease.Timings{LeaseDuration: lease.DefaultLeaseDuration, RenewDeadline: lease.DefaultRenewDeadline, RetryPeriod: lease.DefaultRetryPeriod}
	for _, tc := range []struct {
		name string
		in   lease.Timings
		want lease.Timings // when valid
		err  string        // substring of the error; "" for none
	}{
		{"zero: the defaults", lease.Timings{}, defaults, ""},
		{"short timings", lease.Timings{LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 250 * time.Millisecond},
			lease.Timings{LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 250 * time.Millisecond}, ""},
		{"only a longer lease (defaults below it)", lease.Timings{LeaseDuration: time.Minute},
			lease.Timings{LeaseDuration: time.Minute, RenewDeadline: lease.DefaultRenewDeadline, RetryPeriod: lease.DefaultRetryPeriod}, ""},
		{"negative lease duration", lease.Timings{LeaseDuration: -time.Second}, lease.Timings{}, "LeaseDuration must not be negative"},
		{"negative renew deadline", lease.Timings{RenewDeadline: -time.Second}, lease.Timings{}, "RenewDeadline must not be negative"},
		{"negative retry period", lease.Timings{RetryPeriod: -time.Second}, lease.Timings{}, "RetryPeriod must not be negative"},
		{"renew deadline equal to lease", lease.Timings{LeaseDuration: 10 * time.Second}, lease.Timings{}, "RenewDeadline (10s) must be shorter than LeaseDuration (10s)"},
		{"renew deadline past the default lease", lease.Timings{RenewDeadline: 20 * time.Second}, lease.Timings{}, "RenewDeadline (20s) must be shorter than LeaseDuration (15s)"},
		{"retry period past renew deadline", lease.Timings{RetryPeriod: 10 * time.Second}, lease.Timings{}, "RetryPeriod (10s) must be shorter than RenewDeadline (10s)"},
		{"lease too long for the Lease", lease.Timings{LeaseDuration: 1 << 62}, lease.Timings{}, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.WithDefaults(errInvalid)
			if tc.err != "" {
				if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("WithDefaults = %v, want an error wrapping the sentinel containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("WithDefaults = %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WithDefaults mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int32{time.Second: 1, 1500 * time.Millisecond: 2, 15 * time.Second: 15} {
		if got := (lease.Timings{LeaseDuration: d}).Seconds(); got != want {
			t.Errorf("Seconds(%v) = %d, want %d", d, got, want)
		}
	}
}
