package controller_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/queue"
)

// syncBuffer is a bytes.Buffer safe for the writes of many workers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the records that contain msg, the text of a msg
// attribute.
func (b *syncBuffer) lines(msg string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for l := range strings.Lines(b.buf.String()) {
		if strings.Contains(l, msg) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

func TestLogsCarryControllerAndKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, memsource.Options[*Bar]{})
		e.createFoo("a")
		var out syncBuffer
		logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		}))
		r := recorder{result: func(ctx context.Context, _ string, n int) (queue.Result, error) {
			controller.LoggerFrom(ctx).Info("reconciling", "attempt", n)
			if n == 1 {
				return queue.Result{}, queue.TerminalError(errors.New("invalid"))
			}
			return queue.Result{}, nil
		}}
		c := newController(t, e, &r, controller.Options[string]{Logger: logger})
		e.run(c)
		settle(t, c)
		want := []string{`level=INFO msg=reconciling controller=foo key=ns/a attempt=1`}
		if diff := cmp.Diff(want, out.lines("msg=reconciling ")); diff != "" {
			t.Errorf("reconcile's records mismatch (-want +got):\n%s", diff)
		}
		want = []string{`level=ERROR msg="queue: terminal error, not retrying" controller=foo queue=foo item=ns/a error=invalid`}
		if diff := cmp.Diff(want, out.lines(`msg="queue: terminal error, not retrying"`)); diff != "" {
			t.Errorf("worker's records mismatch (-want +got):\n%s", diff)
		}
		if l := controller.LoggerFrom(t.Context()); l != slog.Default() {
			t.Error("LoggerFrom(a context of no reconcile) is not slog.Default()")
		}
	})
}
