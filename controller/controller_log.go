package controller

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// loggerKey is the context key of the keyLogger LoggerFrom reads.
type loggerKey struct{}

// LoggerFrom returns the logger of the reconcile whose context is ctx:
// Options.Logger with the controller's name ("controller") and the key
// ("key"), so that what reconcile logs says which controller and key it
// is about. Outside a reconcile it returns slog.Default.
//
// The logger is built on the first call of a reconcile, so that a
// reconcile that does not log pays nothing for it.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(keyed); ok {
		return l.keyed()
	}
	return slog.Default()
}

// keyed is the value a reconcile's context holds under loggerKey.
type keyed interface {
	keyed() *slog.Logger
}

// keyLogger is the logger of one reconcile: the controller's logger with
// the key, built when first asked for.
type keyLogger[K comparable] struct {
	parent *slog.Logger
	key    K
	built  atomic.Pointer[slog.Logger]
}

// keyed returns the controller's logger with the key. Calls at the same
// time may each build one; all return the first stored.
func (l *keyLogger[K]) keyed() *slog.Logger {
	if b := l.built.Load(); b != nil {
		return b
	}
	l.built.CompareAndSwap(nil, l.parent.With("key", l.key))
	return l.built.Load()
}
