package leader_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/kube/internal/leasetest"
	"github.com/typedcache/typedcache/kube/leader"
)

const (
	leaseDuration = leader.DefaultLeaseDuration
	renewDeadline = leader.DefaultRenewDeadline
	retryPeriod   = leader.DefaultRetryPeriod
)

// TestAcquireRenewRelease: the first candidate acquires the Lease at once
// and renews it every retry period while the second waits; when the
// leader's context ends it releases the Lease, and the second takes over
// within one retry period.
func TestAcquireRenewRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		t0 := time.Now()
		a := startCandidate(t, s, "a", leader.Options{})
		<-a.started
		if got := a.term().start; !got.Equal(t0) {
			t.Errorf("a started leading after %v, want at once", got.Sub(t0))
		}
		b := startCandidate(t, s, "b", leader.Options{})

		time.Sleep(time.Minute)
		synctest.Wait()
		if !a.leading() || b.leading() {
			t.Fatalf("after a minute: a leading %v, b leading %v; want a only", a.leading(), b.leading())
		}
		if n, want := s.Count("lease", "a"), int(time.Minute/retryPeriod); n < want {
			t.Errorf("a wrote the Lease %d times in a minute, want at least %d (one per retry period)", n, want)
		}

		stopped := time.Now()
		if err := a.stop(); err != nil {
			t.Errorf("a: Run = %v, want nil", err)
		}
		if h := s.Holder("lease"); h != "" && h != "b" {
			t.Errorf("after a released the Lease, it names %q", h)
		}
		<-b.started
		if wait := b.term().start.Sub(stopped); wait > retryPeriod {
			t.Errorf("b took over %v after a released the Lease, want at most %v", wait, retryPeriod)
		}
		checkNoOverlap(t, a, b)
	})
}

// TestTakeoverAfterExpiry: a leader that stops without releasing the
// Lease (as if it crashed) is replaced no earlier than a lease duration
// after its last write, and within two retry periods more.
func TestTakeoverAfterExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		keep := leader.Options{KeepLease: true}
		a := startCandidate(t, s, "a", keep)
		<-a.started
		b := startCandidate(t, s, "b", keep)
		time.Sleep(30 * time.Second)
		if err := a.stop(); err != nil {
			t.Errorf("a: Run = %v, want nil", err)
		}
		if h := s.Holder("lease"); h != "a" {
			t.Errorf("with KeepLease, the Lease names %q after a stopped, want a", h)
		}
		last := s.LastWrite("lease", "a")
		<-b.started
		wait := b.term().start.Sub(last)
		if wait < leaseDuration || wait > leaseDuration+2*retryPeriod {
			t.Errorf("b took over %v after a's last write, want within [%v, %v]", wait, leaseDuration, leaseDuration+2*retryPeriod)
		}
		checkNoOverlap(t, a, b)
	})
}

// TestLossWhenRenewalsFail: a leader whose renewals fail stops leading
// (its function's context ends) no later than the renew deadline after
// it sent its last successful renewal, so before another candidate can
// acquire the Lease, a lease duration after that renewal. A response
// that arrives late does not extend leadership: the deadline counts from
// the request's send time.
func TestLossWhenRenewalsFail(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(*leasetest.Link)
	}{
		{"requests fail", func(l *leasetest.Link) { l.Down.Store(true) }},
		{"a slow response, then requests fail", func(l *leasetest.Link) { l.SlowThenDown(slowLatency) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := leasetest.NewStore()
				a := startCandidate(t, s, "a", leader.Options{})
				<-a.started
				b := startCandidate(t, s, "b", leader.Options{})
				c := startCandidate(t, s, "c", leader.Options{})
				time.Sleep(20*time.Second + retryPeriod/2) // between two renewals
				tc.cut(a.link)

				err := a.result()
				if !errors.Is(err, leader.ErrLost) {
					t.Fatalf("a: Run = %v, want ErrLost", err)
				}
				last := s.LastWrite("lease", "a")
				if held := a.term().end.Sub(last); held > renewDeadline {
					t.Errorf("a led %v after sending its last successful renewal, want at most the renew deadline %v", held, renewDeadline)
				}
				<-synctestEither(b.started, c.started)
				next := b
				if c.leading() {
					next = c
				}
				if wait := next.term().start.Sub(last); wait < leaseDuration {
					t.Errorf("%s took over %v after a's last write, want at least %v", next.id, wait, leaseDuration)
				}
				checkNoOverlap(t, a, b, c)
				t.Logf("a: %v", err)
			})
		})
	}
}

// synctestEither returns a channel closed when x or y is.
func synctestEither(x, y <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		select {
		case <-x:
		case <-y:
		}
		close(ch)
	}()
	return ch
}

// TestTaken: a leader that finds the Lease written by another candidate
// stops leading at its next attempts to renew, and does not release it.
func TestTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		a := startCandidate(t, s, "a", leader.Options{})
		<-a.started
		time.Sleep(retryPeriod / 2)
		taken := time.Now()
		s.Set("lease", "intruder")
		err := a.result()
		if !errors.Is(err, leader.ErrLost) {
			t.Fatalf("a: Run = %v, want ErrLost", err)
		}
		if d := a.term().end.Sub(taken); d > 2*retryPeriod {
			t.Errorf("a led %v after the Lease was taken, want at most two retry periods", d)
		}
		if h := s.Holder("lease"); h != "intruder" {
			t.Errorf("Lease names %q, want intruder", h)
		}
	})
}

// TestFunctionReturns: when the function returns on its own, Run releases
// the Lease and returns the function's error.
func TestFunctionReturns(t *testing.T) {
	errBoom := errors.New("boom")
	for name, want := range map[string]error{"nil": nil, "error": errBoom} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := leasetest.NewStore()
				el, err := leader.New(leasetest.NewLink(s).Client(), "lease", "a", leader.Options{})
				if err != nil {
					t.Fatal(err)
				}
				err = el.Run(context.Background(), func(context.Context) error { return want })
				if !errors.Is(err, want) || (want == nil && err != nil) {
					t.Errorf("Run = %v, want %v", err, want)
				}
				if h := s.Holder("lease"); h != "" {
					t.Errorf("Lease names %q after Run, want it released", h)
				}
			})
		})
	}
}

// TestCancelWhileCampaigning: Run returns nil when its context ends
// before it leads, without calling the function or writing the Lease.
func TestCancelWhileCampaigning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		a := startCandidate(t, s, "a", leader.Options{})
		<-a.started
		b := startCandidate(t, s, "b", leader.Options{})
		time.Sleep(time.Minute)
		if err := b.stop(); err != nil {
			t.Errorf("b: Run = %v, want nil", err)
		}
		if b.term().start != (time.Time{}) || s.Count("lease", "b") != 0 {
			t.Errorf("b led or wrote the Lease while a held it")
		}
	})
}

// TestRunning: a second Run of the same Elector returns ErrRunning.
func TestRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		el, err := leader.New(leasetest.NewLink(leasetest.NewStore()).Client(), "lease", "a", leader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = el.Run(context.Background(), func(context.Context) error {
			return el.Run(context.Background(), func(context.Context) error { return nil })
		})
		if !errors.Is(err, leader.ErrRunning) {
			t.Errorf("nested Run = %v, want ErrRunning", err)
		}
	})
}

// TestLongerLeaseStated: a candidate configured with a shorter lease
// than the holder's waits the lease duration the Lease states.
func TestLongerLeaseStated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := leasetest.NewStore()
		a := startCandidate(t, s, "a", leader.Options{LeaseDuration: time.Minute, KeepLease: true})
		<-a.started
		b := startCandidate(t, s, "b", leader.Options{})
		time.Sleep(retryPeriod / 2)
		if err := a.stop(); err != nil {
			t.Errorf("a: Run = %v, want nil", err)
		}
		last := s.LastWrite("lease", "a")
		<-b.started
		if wait := b.term().start.Sub(last); wait < time.Minute {
			t.Errorf("b took over %v after a's last write, want at least the Lease's one minute", wait)
		}
		checkNoOverlap(t, a, b)
	})
}
