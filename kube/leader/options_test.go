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

// TestNewValidation: New's own arguments, and one case of the timing
// rules (kube/internal/lease tests them all) to show the error wraps
// ErrInvalid.
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
		{"nil client", nil, "l", "a", leader.Options{}, "nil Lease client"},
		{"empty name", leases, "", "a", leader.Options{}, "empty Lease name"},
		{"empty identity", leases, "l", "", leader.Options{}, "empty identity"},
		{"renew deadline past the default lease", leases, "l", "a", leader.Options{RenewDeadline: 20 * time.Second}, "RenewDeadline (20s) must be shorter than LeaseDuration (15s)"},
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
