package controller

import (
	"context"
	"log/slog"
)

// loggerKey is the context key of the logger LoggerFrom returns.
type loggerKey struct{}

// LoggerFrom returns the logger of the reconcile whose context is ctx:
// Options.Logger with the controller's name ("controller") and the key
// ("key"), so that what reconcile logs says which controller and key it
// is about. Outside a reconcile it returns slog.Default.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}
