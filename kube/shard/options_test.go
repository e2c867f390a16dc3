package shard_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/typedcache/typedcache/kube/shard"
	"github.com/typedcache/typedcache/queue"
)

// TestInvalid: every argument New, NewWork and Run reject gives an error
// wrapping ErrInvalid that names it, and no Shard or Work; the timing
// rules themselves are kube/internal/lease's and tested there.
func TestInvalid(t *testing.T) {
	leases := fake.NewClientset().CoordinationV1().Leases("ns")
	sh, err := shard.New(leases, "ctl", "pod-1", shard.Options{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond})
	if err != nil || sh == nil {
		t.Fatalf("New with short timings = %v, %v; want a Shard", sh, err)
	}
	q := queue.NewTypedRateLimitingQueue(queue.DefaultTypedControllerRateLimiter[string](), queue.Options{})
	defer q.ShutDown()
	id := func(k string) string { return k }
	none := func(func(string) bool) {}
	newShard := func(l coordinationv1client.LeaseInterface, group, identity string, opts shard.Options) func() (bool, error) {
		return func() (bool, error) { sh, err := shard.New(l, group, identity, opts); return sh != nil, err }
	}
	newWork := func(sh *shard.Shard, q *queue.TypedRateLimitingQueue[string], key func(string) string, all iter.Seq[string]) func() (bool, error) {
		return func() (bool, error) { w, err := shard.NewWork(sh, q, key, all); return w != nil, err }
	}
	for _, tc := range []struct {
		name string
		call func() (made bool, err error)
		want string // substring of the error
	}{
		{"nil client", newShard(nil, "ctl", "pod-1", shard.Options{}), "nil Lease client"},
		{"empty group", newShard(leases, "", "pod-1", shard.Options{}), `group "" is not`},
		{"group not a label value", newShard(leases, "my ctl", "pod-1", shard.Options{}), `group "my ctl" is not`},
		{"empty identity", newShard(leases, "ctl", "", shard.Options{}), `identity "" is not`},
		{"identity with a comma (the ack separator)", newShard(leases, "ctl", "a,b", shard.Options{}), `identity "a,b" is not`},
		{"Lease name too long", newShard(leases, strings.Repeat("g", 63), strings.Repeat("i", 200), shard.Options{}), "Lease name"},
		{"timings out of order", newShard(leases, "ctl", "pod-1", shard.Options{RenewDeadline: 20 * time.Second}), "RenewDeadline (20s) must be shorter than LeaseDuration (15s)"},
		{"nil shard", newWork(nil, q, id, none), "nil Shard"},
		{"nil queue", newWork(sh, nil, id, none), "nil queue"},
		{"nil key", newWork(sh, q, nil, none), "nil key function"},
		{"nil iterator", newWork(sh, q, id, nil), "nil key iterator"},
		{"nil function to Run", func() (bool, error) { return false, sh.Run(context.Background(), nil) }, "nil function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			made, err := tc.call()
			if made || !errors.Is(err, shard.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v (made: %v), want an error wrapping ErrInvalid containing %q", err, made, tc.want)
			}
		})
	}
}
