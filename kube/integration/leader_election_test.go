package integration

import (
	"errors"
	"testing"
	"time"

	"github.com/typedcache/typedcache/kube/leader"
)

// TestLeaderCrash: three candidates; the leader stops without releasing
// the Lease, as a crashed process would. Another takes over once the
// Lease has gone unrenewed for a lease duration: within a lease duration
// and two retry periods of the crash (one for the others to see the last
// renewal, one to notice its expiry), plus slack for the requests.
func TestLeaderCrash(t *testing.T) {
	c := newCluster(t)
	opts := leaderOpts
	opts.KeepLease = true
	cs := startCandidates(t, c, c.namespace(t), 3, opts)
	old, _ := cs.waitLeader(t, nil)

	crash := time.Now()
	old.cancel()
	if err := old.wait(); err != nil {
		t.Errorf("%s: Run = %v, want nil", old.id, err)
	}
	next, tm := cs.waitLeader(t, old)
	takeover := tm.start.Sub(crash)
	t.Logf("%s crashed; %s leads %v later (lease %v, retry %v)", old.id, next.id, takeover, opts.LeaseDuration, opts.RetryPeriod)
	if limit := opts.LeaseDuration + 2*opts.RetryPeriod + time.Second; takeover > limit {
		t.Errorf("takeover after a crash took %v, want at most %v", takeover, limit)
	}
	if takeover < opts.LeaseDuration/2 {
		t.Errorf("takeover after a crash took %v: the Lease cannot have expired yet", takeover)
	}
	cs.checkNoOverlap(t)
}

// TestLeaderCutOff: three candidates; the leader's requests start failing
// (or hanging) while the others' work. The leader stops leading, by its
// own record, before another starts, by that one's record, and within
// the renew deadline of the cut (plus a retry period of slack for the
// function to see its context end on a busy machine).
func TestLeaderCutOff(t *testing.T) {
	c := newCluster(t)
	for _, tc := range []struct {
		name string
		mode int32
	}{
		{"requests fail", linkRefused},
		{"requests hang", linkHung},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := startCandidates(t, c, c.namespace(t), 3, leaderOpts)
			old, _ := cs.waitLeader(t, nil)

			cut := time.Now()
			old.mode.Store(tc.mode)
			next, tm := cs.waitLeader(t, old)
			if err := old.wait(); !errors.Is(err, leader.ErrLost) {
				t.Errorf("%s: Run = %v, want ErrLost", old.id, err)
			}
			ended := old.last()
			if ended.end.IsZero() || !ended.end.Before(tm.start) {
				t.Fatalf("%s led until %v, %s from %v: two leaders at once", old.id, ended.end, next.id, tm.start)
			}
			t.Logf("cut off at 0: %s stopped leading at %v, %s started at %v (gap %v)",
				old.id, ended.end.Sub(cut), next.id, tm.start.Sub(cut), tm.start.Sub(ended.end))
			if held, limit := ended.end.Sub(cut), leaderOpts.RenewDeadline+leaderOpts.RetryPeriod; held > limit {
				t.Errorf("%s led %v after it was cut off, want at most %v", old.id, held, limit)
			}
			cs.checkNoOverlap(t)
		})
	}
}

// TestLeaderRelease: three candidates; the leader shuts down gracefully
// and releases the Lease, and another leads within about one retry
// period.
func TestLeaderRelease(t *testing.T) {
	c := newCluster(t)
	cs := startCandidates(t, c, c.namespace(t), 3, leaderOpts)
	old, _ := cs.waitLeader(t, nil)

	shutdown := time.Now()
	old.cancel()
	if err := old.wait(); err != nil {
		t.Errorf("%s: Run = %v, want nil", old.id, err)
	}
	next, tm := cs.waitLeader(t, old)
	takeover := tm.start.Sub(shutdown)
	t.Logf("%s shut down; %s leads %v later (retry %v)", old.id, next.id, takeover, leaderOpts.RetryPeriod)
	if limit := leaderOpts.RetryPeriod + time.Second; takeover > limit {
		t.Errorf("takeover after a release took %v, want at most %v", takeover, limit)
	}
	cs.checkNoOverlap(t)
}
