package shard_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

func TestNewValidation(t *testing.T) {
	leases := fake.NewClientset().CoordinationV1().Leases("ns")
	for _, tc := range []struct {
		name            string
		leases          coordinationv1client.LeaseInterface
		group, identity string
		opts            shard.Options
		want            string // substring of the error; "" for none
	}{
		{"defaults", leases, "ctl", "pod-1", shard.Options{}, ""},
		{"short timings", leases, "ctl", "pod-1", shard.Options{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond}, ""},
		{"nil client", nil, "ctl", "pod-1", shard.Options{}, "nil Lease client"},
		{"empty group", leases, "", "pod-1", shard.Options{}, `group "" is not`},
		{"group not a label value", leases, "my ctl", "pod-1", shard.Options{}, `group "my ctl" is not`},
		{"empty identity", leases, "ctl", "", shard.Options{}, `identity "" is not`},
		{"identity with a comma (the ack separator)", leases, "ctl", "a,b", shard.Options{}, `identity "a,b" is not`},
		{"Lease name too long", leases, strings.Repeat("g", 63), strings.Repeat("i", 200), shard.Options{}, "Lease name"},
		{"renew deadline past the lease", leases, "ctl", "pod-1", shard.Options{RenewDeadline: 20 * time.Second}, "RenewDeadline (20s) must be shorter than LeaseDuration (15s)"},
		{"retry period past renew deadline", leases, "ctl", "pod-1", shard.Options{RetryPeriod: 10 * time.Second}, "RetryPeriod (10s) must be shorter than RenewDeadline (10s)"},
		{"negative retry period", leases, "ctl", "pod-1", shard.Options{RetryPeriod: -time.Second}, "RetryPeriod must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh, err := shard.New(tc.leases, tc.group, tc.identity, tc.opts)
			if tc.want == "" {
				if err != nil || sh == nil {
					t.Fatalf("New = %v, %v; want a Shard", sh, err)
				}
				return
			}
			if sh != nil || !errors.Is(err, shard.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, %v; want an error wrapping ErrInvalid containing %q", sh, err, tc.want)
			}
		})
	}
}

func TestNewWorkValidation(t *testing.T) {
	sh, err := shard.New(fake.NewClientset().CoordinationV1().Leases("ns"), "ctl", "a", shard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
	defer q.ShutDown()
	id := func(k string) string { return k }
	none := func(func(string) bool) {}
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"nil shard", func() error { _, err := shard.NewWork(nil, q, id, none); return err }, "nil Shard"},
		{"nil queue", func() error { _, err := shard.NewWork(sh, nil, id, none); return err }, "nil queue"},
		{"nil key", func() error { _, err := shard.NewWork(sh, q, nil, none); return err }, "nil key function"},
		{"nil iterator", func() error { _, err := shard.NewWork(sh, q, id, nil); return err }, "nil key iterator"},
		{"nil function to Run", func() error { return sh.Run(context.Background(), nil) }, "nil function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.err(); !errors.Is(err, shard.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error wrapping ErrInvalid containing %q", err, tc.want)
			}
		})
	}
}
