package informer_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/memsource"
)

// An index function that fails on an object does not keep it out of the
// cache: the object is cached and notified, only the failing index leaves
// it out, the failure is reported once per episode with the key and the
// index, and Stats counts failures and the objects missing from an index.
func TestIndexFailureKeepsObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, memsource.Options[*obj]{}, newObj("a", 1), newObj("bad", -1))
		var errs []error
		inf := informer.New(src, informer.Options[*obj]{
			Indexers: indexer.Indexers[*obj]{"value": func(o *obj) ([]string, error) {
				if o.Value < 0 {
					return nil, errors.New("negative value")
				}
				return []string{"v"}, nil
			}},
			ErrorHandler: func(_ context.Context, err error) { errs = append(errs, err) },
		})
		rec := newRecorder()
		mustAdd(t, inf, rec, informer.HandlerOptions{})
		start(t, inf)
		synctest.Wait()

		type state struct {
			Handler  map[string]int
			Cached   []string
			Indexed  []string
			Failures uint64
			Missing  int
			Reported int
		}
		check := func(step string, want state) {
			t.Helper()
			indexed, err := inf.Cache().IndexKeys("value", "v")
			if err != nil {
				t.Fatal(err)
			}
			st := inf.Stats()
			got := state{rec.values(), slices.Sorted(inf.Cache().Keys()), indexed, st.IndexFailures, st.Unindexed, len(errs)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: state mismatch (-want +got):\n%s", step, diff)
			}
		}
		both := []string{"ns/a", "ns/bad"}
		check("synced", state{map[string]int{"ns/a": 1, "ns/bad": -1}, both, []string{"ns/a"}, 1, 1, 1})
		var ie *indexer.IndexError
		if !errors.As(errs[0], &ie) || ie.Key != "ns/bad" || ie.Index != "value" || !strings.Contains(errs[0].Error(), "negative value") {
			t.Errorf("reported %v, want an *indexer.IndexError for index value of ns/bad", errs[0])
		}

		update(t, src, "bad", -2)
		synctest.Wait()
		check("still failing: not reported again", state{map[string]int{"ns/a": 1, "ns/bad": -2}, both, []string{"ns/a"}, 2, 1, 1})

		update(t, src, "bad", 3)
		synctest.Wait()
		check("indexed again", state{map[string]int{"ns/a": 1, "ns/bad": 3}, both, both, 2, 0, 1})

		update(t, src, "bad", -3)
		synctest.Wait()
		check("failing again: reported again", state{map[string]int{"ns/a": 1, "ns/bad": -3}, both, []string{"ns/a"}, 3, 1, 2})

		remove(t, src, "bad")
		synctest.Wait()
		check("deleted", state{map[string]int{"ns/a": 1}, []string{"ns/a"}, []string{"ns/a"}, 3, 0, 2})
	})
}
