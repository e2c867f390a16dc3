package controller

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestKeyLoggerBuiltOnce checks that LoggerFrom builds a reconcile's
// logger on its first call and returns the same one after, with the key.
func TestKeyLoggerBuiltOnce(t *testing.T) {
	var out bytes.Buffer
	parent := slog.New(slog.NewTextHandler(&out, nil)).With("controller", "c")
	ctx := context.WithValue(context.Background(), loggerKey{}, &keyLogger[string]{parent: parent, key: "ns/a"})
	first := LoggerFrom(ctx)
	if second := LoggerFrom(ctx); second != first {
		t.Errorf("LoggerFrom built a second logger %p; want the first, %p", second, first)
	}
	first.Info("hello")
	if got := out.String(); !strings.Contains(got, "controller=c key=ns/a msg=hello") && !strings.Contains(got, "msg=hello controller=c key=ns/a") {
		t.Errorf("record %q lacks controller=c key=ns/a", got)
	}
	if LoggerFrom(context.Background()) != slog.Default() {
		t.Error("LoggerFrom outside a reconcile is not slog.Default")
	}
}
