package main

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/typedcache/typedcache/memsource"
)

// Writes based on a cache that was behind, and injected faults, are
// routine; anything else, even joined with routine errors, is an Error.
func TestErrorLevel(t *testing.T) {
	conflict := fmt.Errorf("update default/a-0: %w", memsource.ErrConflict)
	exists := fmt.Errorf("create default/a-1: %w", memsource.ErrAlreadyExists)
	other := errors.New("disk full")
	tests := []struct {
		name string
		err  error
		want slog.Level
	}{
		{"conflict", conflict, slog.LevelDebug},
		{"already exists", exists, slog.LevelDebug},
		{"injected fault", memsource.ErrInjected, slog.LevelDebug},
		{"joined routine errors", errors.Join(conflict, exists), slog.LevelDebug},
		{"other error", other, slog.LevelError},
		{"other error joined with a conflict", errors.Join(conflict, other), slog.LevelError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorLevel(tt.err); got != tt.want {
				t.Errorf("errorLevel(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
