package memsource_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// follow reads w, which watches from version from (0 for initial events),
// until it has applied the write at version last. It checks that the
// writes arrive gap-free and in order after any initial events, and
// returns the state it built as name=value.
func follow(w reflector.Watch[*item], from, last uint64) (map[string]int, error) {
	state := map[string]int{}
	at := from // 0 until the initial events end
	for {
		ev, err := w.Next(context.Background())
		if err == io.EOF {
			return nil, errors.New("watch ended early")
		}
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case reflector.Bookmark:
			if ev.InitialEventsEnd {
				at, _ = strconv.ParseUint(ev.ResourceVersion, 10, 64)
				if at == last {
					return state, nil
				}
			}
			continue
		case reflector.Added:
			state[ev.Object.Name] = ev.Object.Value
			if at == 0 {
				continue
			}
		case reflector.Updated:
			state[ev.Object.Name] = ev.Object.Value
		case reflector.Deleted:
			delete(state, ev.Object.Name)
		}
		v, err := strconv.ParseUint(ev.ResourceVersion, 10, 64)
		if err != nil || v != at+1 {
			return nil, fmt.Errorf("event %s after version %d", describe(ev), at)
		}
		at = v
		if at == last {
			return state, nil
		}
	}
}

func TestConcurrentWritersAndWatchers(t *testing.T) {
	const writers, writes, keys = 3, 2000, 50
	src := memsource.New(memsource.Options[*item]{HistorySize: writers*writes + 10})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var watchers []reflector.Watch[*item]
	for range 3 {
		w, err := src.Watch(ctx, reflector.WatchOptions{ResourceVersion: "1"})
		if err != nil {
			t.Fatal(err)
		}
		watchers = append(watchers, w)
	}
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range writes {
				name := strconv.Itoa((i*31 + g*17) % keys)
				switch i % 4 {
				case 0, 1:
					if _, err := src.Update(newItem(name, i)); errors.Is(err, memsource.ErrNotFound) {
						_, _ = src.Create(newItem(name, i))
					}
				case 2:
					_, _ = src.Create(newItem(name, i))
				case 3:
					_, _ = src.Delete("ns/" + name)
				}
			}
		})
	}
	// Mid-way, a streaming watcher and a paginating lister join.
	streaming, err := src.Watch(ctx, reflector.WatchOptions{SendInitialEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	watchers = append(watchers, streaming)
	wg.Go(func() {
		for range 20 {
			if _, _, err := listAll(ctx, src, 5); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()

	last, _ := strconv.ParseUint(src.ResourceVersion(), 10, 64)
	want := map[string]int{}
	res, err := src.List(ctx, reflector.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		want[it.Name] = it.Value
	}
	for i, w := range watchers {
		from := uint64(1)
		if w == streaming {
			from = 0
		}
		got, err := follow(w, from, last)
		if err != nil {
			t.Fatalf("watcher %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("watcher %d state mismatch (-want +got):\n%s", i, diff)
		}
		w.Stop()
	}
	if err := src.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
