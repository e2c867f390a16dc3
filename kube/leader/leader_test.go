package leader_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube/internal/leasetest"
	"github.com/typedcache/typedcache/kube/leader"
)

// An Elector is what a controller.Manager runs its leader-only
// runnables with, and tells it whether this replica knows its role.
var _ controller.LeaderReporter = (*leader.Elector)(nil)

// TestLeader: Leader reports no one before Run, then the
// leader to both the leader and a follower, and no one to the leader
// once it released the Lease.
func TestLeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		a := startCandidate(t, s, "a", leader.Options{})
		<-a.started
		idle, err := leader.New(leasetest.NewLink(s).Client(), "lease", "c", leader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := idle.Leader(); got != "" {
			t.Errorf("Leader() before Run = %q, want \"\"", got)
		}
		b := startCandidate(t, s, "b", leader.Options{})
		time.Sleep(retryPeriod)
		synctest.Wait()
		if got := a.el.Leader(); got != "a" {
			t.Errorf("a.Leader() while leading = %q, want a", got)
		}
		if got := b.el.Leader(); got != "a" {
			t.Errorf("b.Leader() while following = %q, want a", got)
		}
		if err := a.stop(); err != nil {
			t.Errorf("a: Run = %v, want nil", err)
		}
		<-b.started
		if got := a.el.Leader(); got != "" {
			t.Errorf("a.Leader() after releasing the Lease = %q, want \"\"", got)
		}
	})
}
