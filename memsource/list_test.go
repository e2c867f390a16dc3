package memsource_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

func TestListVersions(t *testing.T) {
	// The source holds c, a, b at versions 2, 3, 4.
	tests := []struct {
		name      string
		opts      reflector.ListOptions
		want      []string
		wantErr   error
		wantRV    string
		wantCount bool // the call counts as expired in Stats
	}{
		{name: "most recent", opts: reflector.ListOptions{}, want: []string{"a", "b", "c"}, wantRV: "4"},
		{name: "any", opts: reflector.ListOptions{ResourceVersion: "0"}, want: []string{"a", "b", "c"}, wantRV: "4"},
		{name: "not older than a past version", opts: reflector.ListOptions{ResourceVersion: "2"}, want: []string{"a", "b", "c"}, wantRV: "4"},
		{name: "not older than the current version", opts: reflector.ListOptions{ResourceVersion: "4"}, want: []string{"a", "b", "c"}, wantRV: "4"},
		{
			name:      "future version is too large",
			opts:      reflector.ListOptions{ResourceVersion: "5"},
			wantErr:   reflector.ErrExpired,
			wantCount: true,
		},
		{name: "not a version", opts: reflector.ListOptions{ResourceVersion: "x"}, wantErr: memsource.ErrInvalidVersion},
		{name: "leading zero is not a version this source made", opts: reflector.ListOptions{ResourceVersion: "04"}, wantErr: memsource.ErrInvalidVersion},
		{name: "malformed continue", opts: reflector.ListOptions{Continue: "!!"}, wantErr: memsource.ErrInvalidContinue},
		{name: "continue without a key", opts: reflector.ListOptions{Continue: "Mg"}, wantErr: memsource.ErrInvalidContinue},
		{name: "continue at version zero", opts: reflector.ListOptions{Continue: "MC9h"}, wantErr: memsource.ErrInvalidContinue},
		{name: "continue from the future", opts: reflector.ListOptions{Continue: "OS9h"}, wantErr: memsource.ErrInvalidContinue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memsource.New(memsource.Options[*item]{})
			mustCreate(t, src, "c", "a", "b")
			res, err := src.List(t.Context(), tt.opts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("List(%+v) error = %v, want %v", tt.opts, err, tt.wantErr)
				}
				if got := src.Stats().Expired; (got == 1) != tt.wantCount {
					t.Errorf("Stats().Expired = %d after the call, want counted: %v", got, tt.wantCount)
				}
				return
			}
			if err != nil {
				t.Fatalf("List(%+v): %v", tt.opts, err)
			}
			if diff := cmp.Diff(tt.want, names(res.Items)); diff != "" {
				t.Errorf("List(%+v) mismatch (-want +got):\n%s", tt.opts, diff)
			}
			if res.ResourceVersion != tt.wantRV || res.Continue != "" {
				t.Errorf("List(%+v) at version %q continue %q, want %q and none", tt.opts, res.ResourceVersion, res.Continue, tt.wantRV)
			}
		})
	}
}

func TestListCanceledContext(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := src.List(ctx, reflector.ListOptions{}); !errors.Is(err, ctx.Err()) {
		t.Errorf("List with a canceled context: %v, want %v", err, ctx.Err())
	}
}

func TestPagination(t *testing.T) {
	all := make([]string, 10)
	for i := range all {
		all[i] = fmt.Sprintf("o%02d", i)
	}
	for _, limit := range []int64{1, 3, 9, 10, 11, 100} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			src := memsource.New(memsource.Options[*item]{})
			mustCreate(t, src, reversedNames(all)...)
			var pages int
			opts := reflector.ListOptions{Limit: limit}
			var got []string
			for {
				res, err := src.List(t.Context(), opts)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if int64(len(res.Items)) > limit {
					t.Fatalf("page of %d items, limit %d", len(res.Items), limit)
				}
				got = append(got, names(res.Items)...)
				if res.Continue == "" {
					break
				}
				opts.Continue = res.Continue
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("pages mismatch (-want +got):\n%s", diff)
			}
			if want := max(1, (10+int(limit)-1)/int(limit)); pages != want {
				t.Errorf("%d pages, want %d", pages, want)
			}
		})
	}
}

// reversedNames returns names in reverse order.
func reversedNames(names []string) []string {
	out := slices.Clone(names)
	slices.Reverse(out)
	return out
}

func TestPaginationIsASnapshot(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	mustCreate(t, src, "a", "b", "c", "d", "e")
	first, err := src.List(t.Context(), reflector.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Change every part of the key space after the first page.
	if _, err := src.Delete("ns/c"); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Update(newItem("d", 9)); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, src, "bb", "f")
	if _, err := src.Delete("ns/a"); err != nil {
		t.Fatal(err)
	}
	rest, err := src.List(t.Context(), reflector.ListOptions{Limit: 10, Continue: first.Continue, ResourceVersion: "999"})
	if err != nil {
		t.Fatal(err)
	}
	if rest.ResourceVersion != first.ResourceVersion || rest.Continue != "" {
		t.Errorf("second page at %q continue %q, want %q and none", rest.ResourceVersion, rest.Continue, first.ResourceVersion)
	}
	got := fmt.Sprint(names(first.Items), names(rest.Items), rest.Items[1].Value)
	if want := "[a b] [c d e] 0"; got != want {
		t.Errorf("pages = %s, want %s", got, want)
	}
	// A fresh list sees the new state.
	now, _, err := listAll(t.Context(), src, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "bb", "d", "e", "f"}, names(now)); diff != "" {
		t.Errorf("new list mismatch (-want +got):\n%s", diff)
	}
	if err := src.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestPagedSnapshotsAreBounded(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	mustCreate(t, src, "a", "b", "c")
	var tokens []string
	for i := range 10 {
		res, err := src.List(t.Context(), reflector.ListOptions{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, res.Continue)
		if _, err := src.Update(newItem("b", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	// Every token still continues its own snapshot, rebuilt if it was
	// forgotten; b has the value it had when the token was made.
	for i, tok := range tokens {
		res, err := src.List(t.Context(), reflector.ListOptions{Limit: 1, Continue: tok})
		if err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
		if len(res.Items) != 1 || res.Items[0].Name != "b" || res.Items[0].Value != i {
			t.Errorf("token %d: page %v, want b=%d", i, res.Items, i)
		}
	}
	if n := src.PagedSnapshots(); n > 4 {
		t.Errorf("%d snapshots kept for tokens, want at most 4", n)
	}
}

func TestContinueExpires(t *testing.T) {
	tests := []struct {
		name   string
		expire func(*memsource.Source[*item])
	}{
		{name: "history overrun", expire: func(s *memsource.Source[*item]) {
			for i := range 5 {
				if _, err := s.Update(newItem("a", i)); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "compaction", expire: func(s *memsource.Source[*item]) {
			if _, err := s.Update(newItem("a", 1)); err != nil {
				t.Fatal(err)
			}
			s.Compact()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memsource.New(memsource.Options[*item]{HistorySize: 4})
			mustCreate(t, src, "a", "b")
			first, err := src.List(t.Context(), reflector.ListOptions{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			tt.expire(src)
			_, err = src.List(t.Context(), reflector.ListOptions{Limit: 1, Continue: first.Continue})
			if !errors.Is(err, reflector.ErrExpired) {
				t.Fatalf("continue after expiry: %v, want ErrExpired", err)
			}
			if got := src.Stats().Expired; got != 1 {
				t.Errorf("Stats().Expired = %d, want 1", got)
			}
		})
	}
}

func TestDisablePagination(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{DisablePagination: true})
	mustCreate(t, src, "a", "b", "c")
	if src.Capabilities().Pagination {
		t.Error("Capabilities().Pagination = true with DisablePagination")
	}
	res, err := src.List(t.Context(), reflector.ListOptions{Limit: 1, Continue: "garbage"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 || res.Continue != "" {
		t.Errorf("List with Limit 1 on an unpaginated source: %d items, continue %q; want 3, none", len(res.Items), res.Continue)
	}
}

// TestPaginationConsistentUnderWrites lists in small pages while writers
// change the source: each paginated list must equal the state at its
// version, which a full list taken at the same version shows.
func TestPaginationConsistentUnderWrites(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{HistorySize: 100_000})
	for i := range 200 {
		mustCreate(t, src, fmt.Sprintf("o%03d", i))
	}
	// Record the full state at every version, from a watch that starts now.
	w, err := src.Watch(t.Context(), reflector.WatchOptions{ResourceVersion: src.ResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	base, err := src.List(t.Context(), reflector.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := range 500 {
				name := fmt.Sprintf("o%03d", (i*7+g*13)%250)
				if _, err := src.Update(newItem(name, i)); errors.Is(err, memsource.ErrNotFound) {
					_, _ = src.Create(newItem(name, i))
				} else if i%5 == 0 {
					_, _ = src.Delete("ns/" + name)
				}
			}
		})
	}
	type result struct {
		items   []*item
		version string
	}
	var lists []result
	for range 20 {
		items, version, err := listAll(t.Context(), src, 7)
		if err != nil {
			t.Fatal(err)
		}
		lists = append(lists, result{items, version})
	}
	wg.Wait()
	final := src.ResourceVersion()

	// Replay the watch into per-version states.
	stateAt := map[string]map[string]int{}
	cur := map[string]int{}
	for _, it := range base.Items {
		cur[it.Name] = it.Value
	}
	stateAt[base.ResourceVersion] = maps.Clone(cur)
	for {
		ev := next(t, w)
		switch ev.Type {
		case reflector.Added, reflector.Updated:
			cur[ev.Object.Name] = ev.Object.Value
		case reflector.Deleted:
			delete(cur, ev.Object.Name)
		default:
			t.Fatalf("unexpected event %s", describe(ev))
		}
		stateAt[ev.ResourceVersion] = maps.Clone(cur)
		if ev.ResourceVersion == final {
			break
		}
	}
	w.Stop()
	for _, l := range lists {
		want, ok := stateAt[l.version]
		if !ok {
			t.Fatalf("no state recorded at version %s", l.version)
		}
		got := map[string]int{}
		for _, it := range l.items {
			got[it.Name] = it.Value
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("paginated list at %s mismatch (-want +got):\n%s", l.version, diff)
		}
		if !slices.IsSortedFunc(l.items, func(a, b *item) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("paginated list at %s is not in key order", l.version)
		}
	}
	if err := src.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestPaginationWithEmptyKey(t *testing.T) {
	// A custom key function may produce "", which sorts first.
	src := memsource.New(memsource.Options[*item]{KeyFunc: func(i *item) (string, error) { return i.Name[1:], nil }})
	mustCreate(t, src, "x", "xa", "xb")
	items, _, err := listAll(t.Context(), src, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x", "xa", "xb"}, names(items)); diff != "" {
		t.Errorf("pages of one mismatch (-want +got):\n%s", diff)
	}
}
