package controller

import (
	"context"
	"fmt"
)

// A Runnable is run by a Manager until ctx ends: Run returns nil when ctx
// ends, only after everything it started has exited, or the error that
// stopped it.
type Runnable interface {
	Run(ctx context.Context) error
}

// A Syncer reports whether a runnable's caches have synced; a Manager is
// ready once every Syncer it runs has.
type Syncer interface {
	HasSynced() bool
}

// A LeaderElectionRunnable is a Runnable that says whether it runs only on
// the elected replica. A Manager with an Elector runs every other
// Runnable on the elected replica only, as controller-runtime does.
type LeaderElectionRunnable interface {
	Runnable
	// NeedLeaderElection reports whether the runnable must run only on
	// the elected replica.
	NeedLeaderElection() bool
}

// RunnableFunc adapts a function to the Runnable interface. Under an
// Elector it runs on the elected replica only.
type RunnableFunc func(ctx context.Context) error

// Run calls f(ctx).
func (f RunnableFunc) Run(ctx context.Context) error { return f(ctx) }

// named is implemented by runnables with a name of their own, such as
// controllers.
type named interface{ Name() string }

// nameOf returns the name a Manager gives the i-th runnable it was given
// in its errors and readiness reports: its Name, or its type and
// position.
func nameOf(r Runnable, i int) string {
	if n, ok := r.(named); ok {
		return n.Name()
	}
	return fmt.Sprintf("runnable %d (%T)", i, r)
}

// needsLeader reports whether r runs only on the elected replica.
func needsLeader(r Runnable) bool {
	if l, ok := r.(LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}
