package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// An Elector decides when this replica runs the leader-only runnables of
// a Manager. Run calls lead once this replica is elected, with a context
// that ends when ctx ends or when leadership ends, and returns once lead
// has returned. It returns nil when ctx ended, and otherwise why it
// stopped: leadership was lost, or the campaign failed.
//
// kube/leader's *Elector is one: one replica at a time leads. An Elector
// that is also a Sharder, such as kube/shard's *Shard, calls lead at once
// on every replica, which runs the controllers on all of them, and the
// Manager makes each controller's workers process only the keys of this
// replica's shard, through the ShardGate the Sharder gives it.
type Elector interface {
	Run(ctx context.Context, lead func(ctx context.Context) error) error
}

// A LeaderReporter is an Elector that reports the leader it knows of,
// such as kube/leader's *Elector. A Manager whose Elector is one is not
// ready before this replica leads or Leader returns a non-empty identity:
// until then it does not know whether it leads or follows. A Manager
// whose Elector is not a LeaderReporter takes the role as known from the
// start, so that followers are ready.
type LeaderReporter interface {
	Elector
	// Leader returns the identity of the leader, or "" when none is known.
	Leader() string
}

// elect runs the Elector until ctx ends, with the leader-only runnables
// run while this replica leads. Leadership is kept until ctx ends, even
// when the runnables have all returned nil. When the Elector returns
// while ctx has not ended, the manager fails with ErrLeadershipLost.
func (r *run) elect(ctx context.Context, el Elector, leaders []*entry) {
	err := el.Run(ctx, func(ctx context.Context) error {
		defer r.m.leading.Store(false)
		var wg sync.WaitGroup
		r.start(ctx, &wg, leaders, &r.m.leading)
		wg.Wait()
		<-ctx.Done()
		return nil
	})
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		r.fail(ErrLeadershipLost)
		return
	}
	r.fail(fmt.Errorf("%w: %w", ErrLeadershipLost, err))
}

// roleError returns why this replica does not know its role in the
// election yet, or nil.
func (m *Manager) roleError() error {
	if m.leading.Load() {
		return nil
	}
	if lr, ok := m.opts.Elector.(LeaderReporter); ok && lr.Leader() == "" {
		return errors.New("no leader known yet")
	}
	return nil
}
