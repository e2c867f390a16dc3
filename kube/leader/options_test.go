package leader_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/leader"
)

func TestNewValidation(t *testing.T) {
	leases := fake.NewClientset().CoordinationV1().Leases("ns")
	for _, tc := range []struct {
		name     string
		leases   coordinationv1client.LeaseInterface
		lease    string
		identity string
		opts     leader.Options
		want     string // substring of the error; "" for none
	}{
		{"defaults", leases, "l", "a", leader.Options{}, ""},
		{"short timings", leases, "l", "a", leader.Options{LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 250 * time.Millisecond}, ""},
		{"only a longer lease (defaults below it)", leases, "l", "a", leader.Options{LeaseDuration: time.Minute}, ""},
		{"nil client", nil, "l", "a", leader.Options{}, "nil Lease client"},
		{"empty name", leases, "", "a", leader.Options{}, "empty Lease name"},
		{"empty identity", leases, "l", "", leader.Options{}, "empty identity"},
		{"negative lease duration", leases, "l", "a", leader.Options{LeaseDuration: -time.Second}, "LeaseDuration must not be negative"},
		{"negative renew deadline", leases, "l", "a", leader.Options{RenewDeadline: -time.Second}, "RenewDeadline must not be negative"},
		{"negative retry period", leases, "l", "a", leader.Options{RetryPeriod: -time.Second}, "RetryPeriod must not be negative"},
		{"renew deadline equal to lease", leases, "l", "a", leader.Options{LeaseDuration: 10 * time.Second}, "RenewDeadline (10s) must be shorter than LeaseDuration (10s)"},
		{"renew deadline past the default lease", leases, "l", "a", leader.Options{RenewDeadline: 20 * time.Second}, "RenewDeadline (20s) must be shorter than LeaseDuration (15s)"},
		{"retry period past renew deadline", leases, "l", "a", leader.Options{RetryPeriod: 10 * time.Second}, "RetryPeriod (10s) must be shorter than RenewDeadline (10s)"},
		{"lease too long for the Lease", leases, "l", "a", leader.Options{LeaseDuration: 1 << 62}, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			el, err := leader.New(tc.leases, tc.lease, tc.identity, tc.opts)
			if tc.want == "" {
				if err != nil || el == nil {
					t.Fatalf("New = %v, %v; want an Elector", el, err)
				}
				return
			}
			if el != nil || !errors.Is(err, leader.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, %v; want an error wrapping ErrInvalid containing %q", el, err, tc.want)
			}
		})
	}
}
