package memsource_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// history writes a@2, b@3, a=1@4 and deletes b@5.
func history(t *testing.T, src *memsource.Source[*item]) {
	t.Helper()
	mustCreate(t, src, "a", "b")
	if _, err := src.Update(newItem("a", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Delete("ns/b"); err != nil {
		t.Fatal(err)
	}
}

func TestWatchFrom(t *testing.T) {
	tests := []struct {
		name       string
		opts       memsource.Options[*item]
		watch      reflector.WatchOptions
		want       []string // events before the next write
		wantClosed bool     // the stream ended; otherwise c@6 must follow
	}{
		{
			name:  "the oldest version replays everything",
			watch: reflector.WatchOptions{ResourceVersion: "1"},
			want:  []string{"Added ns/a=0 @2", "Added ns/b=0 @3", "Updated ns/a=1 @4", "Deleted ns/b=0 @5"},
		},
		{
			name:  "a past version replays the writes after it",
			watch: reflector.WatchOptions{ResourceVersion: "3"},
			want:  []string{"Updated ns/a=1 @4", "Deleted ns/b=0 @5"},
		},
		{
			name:  "the current version waits for writes",
			watch: reflector.WatchOptions{ResourceVersion: "5"},
		},
		{
			name:  "most recent starts with the current objects",
			watch: reflector.WatchOptions{ResourceVersion: ""},
			want:  []string{"Added ns/a=1 @4"},
		},
		{
			name:  "any version starts with the current objects",
			watch: reflector.WatchOptions{ResourceVersion: "0"},
			want:  []string{"Added ns/a=1 @4"},
		},
		{
			name:  "streaming list ends the initial events with a bookmark",
			watch: reflector.WatchOptions{ResourceVersion: "", SendInitialEvents: true},
			want:  []string{"Added ns/a=1 @4", "Bookmark @5 end"},
		},
		{
			name:  "streaming list from a version sends the current state",
			watch: reflector.WatchOptions{ResourceVersion: "3", SendInitialEvents: true, AllowBookmarks: true},
			want:  []string{"Added ns/a=1 @4", "Bookmark @5 end"},
		},
		{
			name:  "without streaming lists the end bookmark never comes",
			opts:  memsource.Options[*item]{DisableStreamingList: true},
			watch: reflector.WatchOptions{ResourceVersion: "", SendInitialEvents: true},
			want:  []string{"Added ns/a=1 @4"},
		},
		{
			name:  "without streaming lists a version watch replays history",
			opts:  memsource.Options[*item]{DisableStreamingList: true},
			watch: reflector.WatchOptions{ResourceVersion: "3", SendInitialEvents: true},
			want:  []string{"Updated ns/a=1 @4", "Deleted ns/b=0 @5"},
		},
		{
			name:       "a future version is expired",
			watch:      reflector.WatchOptions{ResourceVersion: "6"},
			want:       []string{"Error expired"},
			wantClosed: true,
		},
		{
			name:       "a version older than the history is expired",
			opts:       memsource.Options[*item]{HistorySize: 2},
			watch:      reflector.WatchOptions{ResourceVersion: "2"},
			want:       []string{"Error expired"},
			wantClosed: true,
		},
		{
			name:  "the oldest version the history covers",
			opts:  memsource.Options[*item]{HistorySize: 2},
			watch: reflector.WatchOptions{ResourceVersion: "3"},
			want:  []string{"Updated ns/a=1 @4", "Deleted ns/b=0 @5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(tt.opts)
				history(t, src)
				w := mustWatch(t, src, tt.watch)
				got, closed := drain(w)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Watch(%+v) mismatch (-want +got):\n%s", tt.watch, diff)
				}
				if closed != tt.wantClosed {
					t.Fatalf("Watch(%+v) closed = %v, want %v", tt.watch, closed, tt.wantClosed)
				}
				if closed {
					return
				}
				mustCreate(t, src, "c")
				got, _ = drain(w)
				if diff := cmp.Diff([]string{"Added ns/c=0 @6"}, got); diff != "" {
					t.Errorf("after a write, Watch(%+v) mismatch (-want +got):\n%s", tt.watch, diff)
				}
			})
		})
	}
}

func TestWatchInvalidVersion(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	for _, v := range []string{"x", "-1", "1.0", " 1"} {
		w, err := src.Watch(t.Context(), reflector.WatchOptions{ResourceVersion: v})
		if !errors.Is(err, memsource.ErrInvalidVersion) || w != nil {
			t.Errorf("Watch(%q) = %v, %v; want nil, ErrInvalidVersion", v, w, err)
		}
	}
}

func TestWatchCanceledContext(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if w, err := src.Watch(ctx, reflector.WatchOptions{}); !errors.Is(err, context.Canceled) || w != nil {
		t.Errorf("Watch with a canceled context = %v, %v; want nil, context.Canceled", w, err)
	}
}

func TestWatchEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(w reflector.Watch[*item], cancel context.CancelFunc)
	}{
		{name: "Stop", end: func(w reflector.Watch[*item], _ context.CancelFunc) { w.Stop() }},
		{name: "Stop twice", end: func(w reflector.Watch[*item], _ context.CancelFunc) { w.Stop(); w.Stop() }},
		{name: "context canceled", end: func(_ reflector.Watch[*item], cancel context.CancelFunc) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(memsource.Options[*item]{})
				mustCreate(t, src, "a")
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				w, err := src.Watch(ctx, reflector.WatchOptions{ResourceVersion: "1"})
				if err != nil {
					t.Fatal(err)
				}
				if got := src.Stats().ActiveWatches; got != 1 {
					t.Errorf("Stats().ActiveWatches = %d with one watch, want 1", got)
				}
				tt.end(w, cancel)
				synctest.Wait()
				if _, err := w.Next(t.Context()); err != io.EOF {
					t.Errorf("Next after the watch ended: %v, want io.EOF", err)
				}
				if got := src.Stats().ActiveWatches; got != 0 {
					t.Errorf("Stats().ActiveWatches = %d after the watch ended, want 0", got)
				}
				w.Stop() // still safe
			})
		})
	}
}

func TestWatchTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		start := time.Now()
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1", Timeout: 30 * time.Second})
		time.Sleep(29 * time.Second)
		mustCreate(t, src, "a")
		if got, closed := drain(w); closed || len(got) != 1 {
			t.Fatalf("before the timeout: events %q, closed %v; want one event, open", got, closed)
		}
		if ev, err := w.Next(t.Context()); err != io.EOF {
			t.Errorf("Next after the last write = %s, %v; want io.EOF", describe(ev), err)
		}
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("watch ended after %v, want 30s", d)
		}
	})
}

func TestWatchBookmarks(t *testing.T) {
	tests := []struct {
		name  string
		opts  memsource.Options[*item]
		allow bool
		want  []string
	}{
		{
			name:  "every interval, at the current version",
			opts:  memsource.Options[*item]{BookmarkInterval: 10 * time.Second},
			allow: true,
			want:  []string{"Bookmark @1", "Added ns/a=0 @2", "Bookmark @2", "Bookmark @2"},
		},
		{
			name:  "default interval is a minute",
			allow: true,
			want:  []string{"Added ns/a=0 @2"},
		},
		{
			name: "not asked for",
			opts: memsource.Options[*item]{BookmarkInterval: 10 * time.Second},
			want: []string{"Added ns/a=0 @2"},
		},
		{
			name:  "disabled",
			opts:  memsource.Options[*item]{BookmarkInterval: 10 * time.Second, DisableBookmarks: true},
			allow: true,
			want:  []string{"Added ns/a=0 @2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(tt.opts)
				w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1", AllowBookmarks: tt.allow})
				reader := startReader(w)
				time.Sleep(15 * time.Second) // one bookmark at 10s
				mustCreate(t, src, "a")
				time.Sleep(20 * time.Second) // two more at 20s and 30s
				got := reader.stop()
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events over 35s mismatch (-want +got):\n%s", diff)
				}
				if n := src.Stats().Bookmarks; n != uint64(len(tt.want)-1) {
					t.Errorf("Stats().Bookmarks = %d, want %d", n, len(tt.want)-1)
				}
			})
		})
	}
}

func TestWatchDefaultBookmarkInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1", AllowBookmarks: true})
		time.Sleep(memsource.DefaultBookmarkInterval)
		got, _ := drain(w)
		if diff := cmp.Diff([]string{"Bookmark @1"}, got); diff != "" {
			t.Errorf("events after %v mismatch (-want +got):\n%s", memsource.DefaultBookmarkInterval, diff)
		}
	})
}

// TestSlowWatcherDoesNotBlockWriters writes far more than the history holds
// while a watcher reads a few events and then nothing: the writes complete,
// and the watcher receives a gap-free prefix of them, then an expiry error.
func TestSlowWatcherDoesNotBlockWriters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{HistorySize: 10})
		mustCreate(t, src, "a")
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "2"})
		var got []reflector.Event[*item]
		for i := range 500 {
			if i == 5 {
				for range 3 { // the watcher reads a little, then falls behind
					got = append(got, next(t, w))
				}
			}
			if _, err := src.Update(newItem("a", i+1)); err != nil {
				t.Fatal(err)
			}
		}
		rest, err := readAll(w)
		got = append(got, rest...)
		if len(got) < 5 || len(got) >= 500 {
			t.Fatalf("slow watcher got %d events, want a prefix and an error", len(got))
		}
		for i, ev := range got {
			if ev.Type != reflector.Updated || ev.Object.Value != i+1 {
				t.Fatalf("event %d = %s, want Updated ns/a=%d", i, describe(ev), i+1)
			}
		}
		if end := describeEnd(err); end != "Error expired" {
			t.Errorf("stream ended with %q, want Error expired", end)
		}
	})
}

func TestWatchCopiesWithClone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{Clone: cloneItem})
		w1 := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1"})
		w2 := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1"})
		mustCreate(t, src, "a")
		e1, e2 := next(t, w1), next(t, w2)
		e1.Object.Value = 5
		stored, _ := src.Get("ns/a")
		if e1.Object == e2.Object || e2.Object.Value != 0 || stored.Value != 0 {
			t.Errorf("watchers share objects with each other or the store despite Clone")
		}
	})
}
