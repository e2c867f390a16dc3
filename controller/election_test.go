package controller_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedcache/typedcache/controller"
)

// fakeElector leads when elect is closed, until ctx ends or an error is
// sent to lose. It is a LeaderReporter.
type fakeElector struct {
	elect  chan struct{}
	lose   chan error
	leader atomic.Pointer[string]
}

func newFakeElector() *fakeElector {
	return &fakeElector{elect: make(chan struct{}), lose: make(chan error)}
}

func (e *fakeElector) Leader() string {
	if p := e.leader.Load(); p != nil {
		return *p
	}
	return ""
}

func (e *fakeElector) setLeader(id string) { e.leader.Store(&id) }

func (e *fakeElector) Run(ctx context.Context, lead func(context.Context) error) error {
	select {
	case <-ctx.Done():
		return nil
	case <-e.elect:
	}
	leadCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- lead(leadCtx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		<-done
		return nil
	case err := <-e.lose:
		cancel(err)
		<-done
		return err
	}
}

// plainElector is an Elector that is not a LeaderReporter.
type plainElector struct{ e *fakeElector }

func (p plainElector) Run(ctx context.Context, lead func(context.Context) error) error {
	return p.e.Run(ctx, lead)
}

var errLost = errors.New("lease lost")

// TestLeaderOnlyRunnables: with an Elector, the runnables that need
// leader election start only once this replica leads, the others at
// once; readiness waits for the role; losing leadership stops every
// runnable and fails Run with ErrLeadershipLost and the Elector's error.
func TestLeaderOnlyRunnables(t *testing.T) {
	lis, client, url := loopback(t)
	el := newFakeElector()
	m := controller.NewManager(nil, controller.ManagerOptions{Elector: el, Listener: lis})
	leader, always := newFake("leader"), newFake("always")
	always.always = true
	leader.synced.Store(true)
	always.synced.Store(true)
	for _, r := range []controller.Runnable{leader, always} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	done := runManager(context.Background(), m)
	<-always.started
	if code, body := get(t, client, url+"/readyz/leader-election"); code != 500 || body != "internal server error: no leader known yet\n" {
		t.Errorf("before the election: GET /readyz/leader-election = %d %q, want 500", code, body)
	}
	if isClosed(leader.started) {
		t.Error("the leader-only runnable started before this replica was elected")
	}
	close(el.elect)
	<-leader.started
	if code, body := get(t, client, url+"/readyz"); code != 200 {
		t.Errorf("leading: GET /readyz = %d %q, want 200", code, body)
	}
	el.lose <- errLost
	<-leader.exited
	err := <-done
	if !errors.Is(err, controller.ErrLeadershipLost) || !errors.Is(err, errLost) {
		t.Errorf("Run = %v, want ErrLeadershipLost and the Elector's error", err)
	}
	if !isClosed(always.exited) {
		t.Error("Run returned before the other runnables")
	}
}

// TestFollowerReady: a follower that knows the leader is ready, and runs
// no leader-only runnable; one whose Elector reports nothing is ready at
// once. Neither starts its leader-only runnables.
func TestFollowerReady(t *testing.T) {
	for _, tc := range []struct {
		name    string
		elector func(*fakeElector) controller.Elector
	}{
		{"reporter", func(e *fakeElector) controller.Elector { e.setLeader("other"); return e }},
		{"no reporter", func(e *fakeElector) controller.Elector { return plainElector{e} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lis, client, url := loopback(t)
			m := controller.NewManager(nil, controller.ManagerOptions{Elector: tc.elector(newFakeElector()), Listener: lis})
			leader, always := newFake("leader"), newFake("always")
			always.always = true
			always.synced.Store(true)
			for _, r := range []controller.Runnable{leader, always} {
				if err := m.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := runManager(ctx, m)
			<-always.started
			if code, body := get(t, client, url+"/readyz"); code != http.StatusOK {
				t.Errorf("GET /readyz = %d %q, want 200", code, body)
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
			if isClosed(leader.started) {
				t.Error("a follower ran the leader-only runnable")
			}
		})
	}
}

// TestLeaderRunnableFailure: a leader-only runnable's error stops the
// manager like any other, and is not reported as a lost election.
func TestLeaderRunnableFailure(t *testing.T) {
	el := newFakeElector()
	close(el.elect)
	m := controller.NewManager(nil, controller.ManagerOptions{Elector: el})
	leader := newFake("leader")
	if err := m.Add(leader); err != nil {
		t.Fatal(err)
	}
	done := runManager(context.Background(), m)
	<-leader.started
	leader.fail <- errBoom
	err := <-done
	if !errors.Is(err, errBoom) || errors.Is(err, controller.ErrLeadershipLost) {
		t.Errorf("Run = %v, want errBoom alone", err)
	}
}

// TestLeaderKeepsLeadingAfterRunnablesReturn: leader-only runnables that
// finish their work do not end the term, nor the manager.
func TestLeaderKeepsLeadingAfterRunnablesReturn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		el := newFakeElector()
		close(el.elect)
		m := controller.NewManager(nil, controller.ManagerOptions{Elector: el})
		ran := make(chan struct{})
		if err := m.Add(controller.RunnableFunc(func(context.Context) error {
			close(ran)
			return nil
		})); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runManager(ctx, m)
		<-ran
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v once the leader's runnables returned nil, want it to run until ctx ends", err)
		default:
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	})
}
