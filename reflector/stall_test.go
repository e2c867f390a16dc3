package reflector_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/reflector"
)

// logBuffer is a text log without times, safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// stallWarning is the start of the warning a stalled streaming list logs.
const stallWarning = `level=WARN msg="the source declares streaming lists but sent no event for a while`

// TestStreamingListStall runs sources that declare streaming lists but do
// not end them: the reflector lists instead once the stream has been idle
// for StreamingListIdleTimeout, warns once, reports no error, and never
// streams again.
func TestStreamingListStall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   reflector.Options
		stream watchReply
		listAt []time.Duration // when the list may come: [earliest, latest]
	}{
		{
			name:   "a stream that sends nothing is listed after the idle timeout",
			stream: openWatch(),
			listAt: []time.Duration{5 * time.Second, 5 * time.Second},
		},
		{
			name:   "a stream that stops after some initial events is listed within a quarter more",
			stream: openWatch(added("a", "5"), added("b", "6")),
			listAt: []time.Duration{5 * time.Second, 6250 * time.Millisecond},
		},
		{
			name:   "the idle timeout is an option",
			opts:   reflector.Options{Tuning: reflector.Tuning{StreamingListIdleTimeout: time.Minute}},
			stream: openWatch(added("a", "5")),
			listAt: []time.Duration{time.Minute, 75 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var log logBuffer
				tc.opts.Logger = log.logger()
				lw := newLW(streaming)
				lw.lists = []listReply{list("10", "a")}
				lw.watches = []watchReply{tc.stream, openWatch(errorEvent(errGone)), openWatch(added("c", "12"))}
				store := &recStore{}
				rn := start(t, lw, store, tc.opts, constRand(0))
				time.Sleep(10 * time.Minute)
				synctest.Wait()
				rn.stop()

				// The watch from the list expires at once: the relist is a
				// list too, after a backoff.
				wantCalls := []string{
					`Watch(rv="" bookmarks initial)`,
					`List(rv="0" limit=0 continue="")`,
					`Watch(rv="10" bookmarks)`,
					`List(rv="10" limit=0 continue="")`,
					`Watch(rv="10" bookmarks)`,
				}
				if diff := cmp.Diff(wantCalls, lw.Calls()); diff != "" {
					t.Errorf("source calls mismatch (-want +got):\n%s", diff)
				}
				if at := lw.Times(); len(at) > 1 && (at[1] < tc.listAt[0] || at[1] > tc.listAt[1]) {
					t.Errorf("listed at %v, want in [%v, %v]", at[1], tc.listAt[0], tc.listAt[1])
				}
				wantOps := []string{"Replace [a@10]@10", "Replace [a@10]@10", "Add c@12"}
				if diff := cmp.Diff(wantOps, store.Ops()); diff != "" {
					t.Errorf("store calls mismatch (-want +got):\n%s", diff)
				}
				// The expiry right after the list is the only error.
				if errs := rn.Errs(); len(errs) != 1 || !matches(errs[0], reflector.ErrExpired) {
					t.Errorf("reported errors = %v, want only the expiry", errs)
				}
				if n := strings.Count(log.String(), stallWarning); n != 1 {
					t.Errorf("%d stall warnings, want 1; log:\n%s", n, log.String())
				}
			})
		})
	}
}

// TestStreamingListSlowButSteady streams an initial list that takes a
// minute, one event every four seconds: it is never cut.
func TestStreamingListSlowButSteady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log logBuffer
		lw := newLW(streaming)
		lw.watches = []watchReply{openWatch()}
		store := &recStore{}
		rn := start(t, lw, store, reflector.Options{Logger: log.logger()}, constRand(0))
		synctest.Wait()
		w := lw.watch(t, 0)
		var want []string
		for i := range 15 {
			time.Sleep(4 * time.Second)
			name := fmt.Sprintf("o%02d", i)
			w.send(t, added(name, fmt.Sprint(i+1)))
			want = append(want, fmt.Sprintf("%s@%d", name, i+1))
		}
		w.send(t, endBookmark("20"))
		synctest.Wait()
		rn.stop()
		if diff := cmp.Diff([]string{`Watch(rv="" bookmarks initial)`}, lw.Calls()); diff != "" {
			t.Errorf("source calls mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"Replace [" + strings.Join(want, " ") + "]@20"}, store.Ops()); diff != "" {
			t.Errorf("store calls mismatch (-want +got):\n%s", diff)
		}
		if strings.Contains(log.String(), "level=WARN") {
			t.Errorf("warning logged for a steady stream:\n%s", log.String())
		}
	})
}

// tickingWatch sends an Added event every second, for ever, and never
// waits on the context it is given: a busy stream whose Next never
// returns the context's error.
type tickingWatch struct{ n int }

func (w *tickingWatch) Next(context.Context) (event, error) {
	time.Sleep(time.Second)
	w.n++
	return added(fmt.Sprint("o", w.n), fmt.Sprint(w.n)), nil
}

func (w *tickingWatch) Stop() {}

// TestStreamingListBusyWithoutEnd streams initial events for ever without
// the end bookmark: the reflector gives up at the watch timeout it asked
// for, reports it, and lists, even though the stream never makes Next
// wait.
func TestStreamingListBusyWithoutEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &reflector.ListWatch[*obj]{
			ListFunc: func(context.Context, reflector.ListOptions) (reflector.ListResult[*obj], error) {
				return reflector.ListResult[*obj]{Items: []*obj{o("a", "10")}, ResourceVersion: "10"}, nil
			},
			WatchFunc: func(_ context.Context, opts reflector.WatchOptions) (reflector.Watch[*obj], error) {
				if opts.SendInitialEvents {
					return &tickingWatch{}, nil
				}
				return newWatch(false), nil
			},
			Supported: streaming,
		}
		store := &recStore{}
		began := time.Now()
		var listed time.Duration
		rn := start(t, lw, &funcStore[*obj]{replace: func(items []*obj, rv string) error {
			listed = time.Since(began)
			return store.Replace(items, rv)
		}}, reflector.Options{}, constRand(0))
		time.Sleep(6 * time.Minute)
		synctest.Wait()
		rn.stop()
		if diff := cmp.Diff([]string{"Replace [a@10]@10"}, store.Ops()); diff != "" {
			t.Errorf("store calls mismatch (-want +got):\n%s", diff)
		}
		if listed < 5*time.Minute || listed > 5*time.Minute+time.Second {
			t.Errorf("listed after %v, want at the 5m watch timeout", listed)
		}
		if errs := rn.Errs(); len(errs) != 1 || !matches(errs[0], errContaining("no end of the initial events after 5m0s")) {
			t.Errorf("reported errors = %v, want the watch timeout", errs)
		}
	})
}
