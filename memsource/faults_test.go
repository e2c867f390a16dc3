package memsource_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

func TestFailLists(t *testing.T) {
	errDown := errors.New("server down")
	tests := []struct {
		name    string
		faults  memsource.Faults
		wantErr error
	}{
		{name: "default error", faults: memsource.Faults{FailLists: 2}, wantErr: memsource.ErrInjected},
		{name: "chosen error", faults: memsource.Faults{FailLists: 2, Err: errDown}, wantErr: errDown},
		{name: "expired list", faults: memsource.Faults{FailLists: 2, Err: reflector.ErrExpired}, wantErr: reflector.ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memsource.New(memsource.Options[*item]{Faults: tt.faults})
			mustCreate(t, src, "a")
			for i := range 2 {
				if _, err := src.List(t.Context(), reflector.ListOptions{}); !errors.Is(err, tt.wantErr) {
					t.Fatalf("List %d: %v, want %v", i, err, tt.wantErr)
				}
			}
			if res, err := src.List(t.Context(), reflector.ListOptions{}); err != nil || len(res.Items) != 1 {
				t.Fatalf("List after the faults: %v, %v; want one item", res.Items, err)
			}
			st := src.Stats()
			if st.FailedLists != 2 || st.Lists != 3 || src.Faults().FailLists != 0 {
				t.Errorf("after two failures: FailedLists %d, Lists %d, FailLists left %d; want 2, 3, 0",
					st.FailedLists, st.Lists, src.Faults().FailLists)
			}
		})
	}
}

// FailLists hits a streaming list too, so that an initial sync meets it
// whichever way the reflector lists; a watch that does not list does not
// use it up.
func TestFailListsStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		mustCreate(t, src, "a")
		src.SetFaults(memsource.Faults{FailLists: 1})
		mustWatch(t, src, reflector.WatchOptions{ResourceVersion: src.ResourceVersion()}) // follows history: no list
		if w, err := src.Watch(t.Context(), reflector.WatchOptions{SendInitialEvents: true}); !errors.Is(err, memsource.ErrInjected) || w != nil {
			t.Fatalf("streaming Watch with a list failure injected = %v, %v; want nil, ErrInjected", w, err)
		}
		mustWatch(t, src, reflector.WatchOptions{SendInitialEvents: true})
		if st := src.Stats(); st.FailedLists != 1 || st.FailedWatches != 0 || src.Faults().FailLists != 0 {
			t.Errorf("Stats() = %+v, FailLists left %d; want 1 failed list, 0 failed watches, none left", st, src.Faults().FailLists)
		}
	})
}

func TestFailWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		src.SetFaults(memsource.Faults{FailWatches: 1})
		if w, err := src.Watch(t.Context(), reflector.WatchOptions{}); !errors.Is(err, memsource.ErrInjected) || w != nil {
			t.Fatalf("Watch with a failure injected = %v, %v; want nil, ErrInjected", w, err)
		}
		mustWatch(t, src, reflector.WatchOptions{})
		if st := src.Stats(); st.FailedWatches != 1 || st.Watches != 2 || st.ActiveWatches != 1 {
			t.Errorf("Stats() = %+v, want 1 failed of 2 watches, 1 active", st)
		}
	})
}

func TestExpireWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{Faults: memsource.Faults{ExpireWatches: 1}})
		mustCreate(t, src, "a")
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: src.ResourceVersion()})
		got, closed := drain(w)
		if diff := cmp.Diff([]string{"Error expired"}, got); diff != "" || !closed {
			t.Errorf("watch with an expiry injected (closed %v) mismatch (-want +got):\n%s", closed, diff)
		}
		w = mustWatch(t, src, reflector.WatchOptions{ResourceVersion: src.ResourceVersion()})
		if got, closed := drain(w); len(got) != 0 || closed {
			t.Errorf("next watch: %q, closed %v; want a quiet open stream", got, closed)
		}
		if st := src.Stats(); st.InjectedExpiries != 1 || st.Expired != 0 {
			t.Errorf("Stats() InjectedExpiries %d, Expired %d; want 1, 0", st.InjectedExpiries, st.Expired)
		}
	})
}

func TestCloseWatchesAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{Faults: memsource.Faults{CloseWatchesAfter: 3}})
		mustCreate(t, src, "a", "b", "c", "d", "e")
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1", AllowBookmarks: true})
		got, closed := drain(w)
		want := []string{"Added ns/a=0 @2", "Added ns/b=0 @3", "Added ns/c=0 @4"}
		if diff := cmp.Diff(want, got); diff != "" || !closed {
			t.Errorf("watch closed after 3 (closed %v) mismatch (-want +got):\n%s", closed, diff)
		}
		// Resuming from the last version seen gets the next three.
		w = mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "4"})
		got, _ = drain(w)
		if diff := cmp.Diff([]string{"Added ns/d=0 @5", "Added ns/e=0 @6"}, got); diff != "" {
			t.Errorf("resumed watch mismatch (-want +got):\n%s", diff)
		}
		// Changing the fault applies to the running watch.
		src.SetFaults(memsource.Faults{CloseWatchesAfter: 1})
		mustCreate(t, src, "f")
		if got, closed := drain(w); len(got) != 1 || !closed {
			t.Errorf("after lowering the limit: %q, closed %v; want one event and closed", got, closed)
		}
		if n := src.Stats().ClosedWatches; n != 2 {
			t.Errorf("Stats().ClosedWatches = %d, want 2", n)
		}
	})
}

func TestCloseWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		mustCreate(t, src, "a")
		for i := range 100 {
			if _, err := src.Update(newItem("a", i)); err != nil {
				t.Fatal(err)
			}
		}
		// blocked has more events than its buffer holds and nobody reads;
		// idle has nothing to send.
		blocked := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "2"})
		idle := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: src.ResourceVersion()})
		synctest.Wait()
		src.CloseWatches()
		if got, closed := drain(blocked); !closed || len(got) >= 100 {
			t.Errorf("blocked watch: %d events, closed %v; want fewer than 100 and closed", len(got), closed)
		}
		if got, closed := drain(idle); !closed || len(got) != 0 {
			t.Errorf("idle watch: %q, closed %v; want none and closed", got, closed)
		}
		// New watches work.
		w := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: src.ResourceVersion()})
		mustCreate(t, src, "b")
		if got, closed := drain(w); len(got) != 1 || closed {
			t.Errorf("watch after CloseWatches: %q, closed %v; want one event, open", got, closed)
		}
		if n := src.Stats().ClosedWatches; n != 2 {
			t.Errorf("Stats().ClosedWatches = %d, want 2", n)
		}
	})
}

func TestCompact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		history(t, src)
		lagging := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "1"})
		// Fill lagging's buffer and batch so that it has not caught up when
		// compacted.
		for i := range 200 {
			if _, err := src.Update(newItem("a", i)); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		src.Compact()
		current := src.ResourceVersion()

		events, closed := drain(lagging)
		if !closed || events[len(events)-1] != "Error expired" {
			t.Errorf("lagging watch ended %v with %q, want closed after Error expired", closed, events[len(events)-1])
		}
		old := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: "4"})
		if got, _ := drain(old); cmp.Diff([]string{"Error expired"}, got) != "" {
			t.Errorf("watch from before the compaction: %q, want Error expired", got)
		}
		now := mustWatch(t, src, reflector.WatchOptions{ResourceVersion: current})
		mustCreate(t, src, "z")
		if got, _ := drain(now); len(got) != 1 {
			t.Errorf("watch from the compaction's version: %q, want the next write", got)
		}
	})
}

func TestDelays(t *testing.T) {
	tests := []struct {
		name string
		call func(context.Context, *memsource.Source[*item]) error
	}{
		{name: "list", call: func(ctx context.Context, s *memsource.Source[*item]) error {
			_, err := s.List(ctx, reflector.ListOptions{})
			return err
		}},
		{name: "watch", call: func(ctx context.Context, s *memsource.Source[*item]) error {
			w, err := s.Watch(ctx, reflector.WatchOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := memsource.New(memsource.Options[*item]{
					Faults: memsource.Faults{ListDelay: 5 * time.Second, WatchDelay: 5 * time.Second},
				})
				start := time.Now()
				if err := tt.call(t.Context(), src); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d != 5*time.Second {
					t.Errorf("delayed %s answered after %v, want 5s", tt.name, d)
				}
				// A deadline shorter than the delay ends the call.
				ctx, cancel := context.WithTimeout(t.Context(), time.Second)
				defer cancel()
				start = time.Now()
				if err := tt.call(ctx, src); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("delayed %s with a 1s deadline: %v, want DeadlineExceeded", tt.name, err)
				}
				if d := time.Since(start); d != time.Second {
					t.Errorf("delayed %s gave up after %v, want 1s", tt.name, d)
				}
				st := src.Stats()
				if st.DelayedLists+st.DelayedWatches != 2 {
					t.Errorf("Stats() counts %d delayed lists and %d watches, want 2 in all", st.DelayedLists, st.DelayedWatches)
				}
			})
		})
	}
}

func TestStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		mustCreate(t, src, "a", "b")
		if _, err := src.Update(newItem("a", 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Delete("ns/b"); err != nil {
			t.Fatal(err)
		}
		_, _ = src.Delete("ns/b") // fails: not counted as a delete
		if _, _, err := listAll(t.Context(), src, 1); err != nil {
			t.Fatal(err)
		}
		w := mustWatch(t, src, reflector.WatchOptions{SendInitialEvents: true})
		drain(w)
		got := src.Stats()
		if src.Len() != 1 || src.ResourceVersion() != "5" {
			t.Errorf("Len() = %d, ResourceVersion() = %q; want 1 and 5", src.Len(), src.ResourceVersion())
		}
		want := memsource.Stats{
			Creates: 2, Updates: 1, Deletes: 1,
			Lists: 1, Watches: 1, ActiveWatches: 1,
			Events: 1, Bookmarks: 1,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Stats() mismatch (-want +got):\n%s", diff)
		}
	})
}
