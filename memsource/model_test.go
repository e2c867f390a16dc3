package memsource_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// modelHistory is the history size of the fuzzed source: small, so that
// expiry happens often.
const modelHistory = 6

// model is a deliberately naive source: it keeps the whole state at every
// version and the list of every write, and derives each answer from them.
type model struct {
	version uint64
	oldest  uint64
	states  map[uint64]map[string]modelObject // the full state at each version
	writes  []string                          // described as events; writes[i] made version i+2
}

// modelObject is a stored object: its value and the version of its last
// write.
type modelObject struct {
	value   int
	version uint64
}

func newModel() *model {
	return &model{version: 1, oldest: 1, states: map[uint64]map[string]modelObject{1: {}}}
}

// current returns the state at the current version.
func (m *model) current() map[string]modelObject { return m.states[m.version] }

// write records a write that leaves next as the state; typ and obj describe
// the event.
func (m *model) write(typ reflector.EventType, name string, obj modelObject, next map[string]modelObject) {
	m.version++
	m.states[m.version] = next
	m.writes = append(m.writes, fmt.Sprintf("%s ns/%s=%d @%d", typ, name, obj.value, m.version))
	m.oldest = max(m.oldest, m.version-min(m.version, modelHistory))
}

// list returns the state at version v as sorted "name=value@version".
func (m *model) list(v uint64) []string {
	state := m.states[v]
	out := []string{}
	for _, name := range slices.Sorted(maps.Keys(state)) {
		o := state[name]
		out = append(out, fmt.Sprintf("%s=%d@%d", name, o.value, o.version))
	}
	return out
}

// watch returns the events a watch from version r sends before the next
// write; r == 0 asks for initial events.
func (m *model) watch(r uint64, streaming bool) []string {
	if r > m.version || (!streaming && r != 0 && r < m.oldest) {
		return []string{"Error expired"}
	}
	if streaming || r == 0 {
		var out []string
		state := m.current()
		for _, name := range slices.Sorted(maps.Keys(state)) {
			o := state[name]
			out = append(out, fmt.Sprintf("Added ns/%s=%d @%d", name, o.value, o.version))
		}
		if streaming {
			out = append(out, fmt.Sprintf("Bookmark @%d end", m.version))
		}
		return out
	}
	return slices.Clone(m.writes[r-1:])
}

// describeItems renders items like model.list.
func describeItems(items []*item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s=%d@%s", it.Name, it.Value, it.Version))
	}
	return out
}

// FuzzSource applies a sequence of operations, three bytes each (operation,
// key, argument), to a Source and to the naive model, and requires the
// same answers: write results and errors, lists, every page of paginated
// lists continued across later writes, and the events of watches from any
// version.
func FuzzSource(f *testing.F) {
	f.Add([]byte{0, 1, 5, 0, 2, 6, 1, 1, 7, 6, 0, 2, 3, 2, 0, 4, 0, 1})
	f.Add([]byte{0, 1, 1, 7, 0, 0, 1, 1, 2, 1, 1, 3, 3, 1, 0, 8, 0, 0, 6, 0, 3, 9, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 2, 0, 7, 0, 0, 2, 1, 4, 5, 0, 0, 8, 0, 0, 6, 0, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		synctest.Test(t, func(t *testing.T) {
			fuzzSource(t, ops)
		})
	})
}

func fuzzSource(t *testing.T, ops []byte) {
	src := memsource.New(memsource.Options[*item]{HistorySize: modelHistory})
	m := newModel()
	var (
		tok     string // a pending continue token, or ""
		tokAt   uint64 // its version
		tokSeen int    // how many items its list has returned
	)
	for len(ops) >= 3 {
		op, name, arg := ops[0]%10, "k"+strconv.Itoa(int(ops[1]%6)), int(ops[2])
		ops = ops[3:]
		cur := m.current()
		old, exists := cur[name]
		next := maps.Clone(cur)
		switch op {
		case 0:
			_, err := src.Create(newItem(name, arg))
			if exists != errors.Is(err, memsource.ErrAlreadyExists) || (!exists && err != nil) {
				t.Fatalf("Create(%s) with exists=%v: %v", name, exists, err)
			}
			if !exists {
				next[name] = modelObject{arg, m.version + 1}
				m.write(reflector.Added, name, next[name], next)
			}
		case 1, 2:
			obj := newItem(name, arg)
			stale := op == 2 && arg%2 == 1
			if op == 2 && !stale {
				obj.Version = strconv.FormatUint(old.version, 10)
			} else if stale {
				obj.Version = "1"
			}
			_, err := src.Update(obj)
			switch {
			case !exists:
				if !errors.Is(err, memsource.ErrNotFound) {
					t.Fatalf("Update(%s) of a missing key: %v", name, err)
				}
			case stale:
				if !errors.Is(err, memsource.ErrConflict) {
					t.Fatalf("Update(%s) at a stale version: %v", name, err)
				}
			case err != nil:
				t.Fatalf("Update(%s): %v", name, err)
			default:
				next[name] = modelObject{arg, m.version + 1}
				m.write(reflector.Updated, name, next[name], next)
			}
		case 3:
			_, err := src.Delete("ns/" + name)
			if exists == (err != nil) || (!exists && !errors.Is(err, memsource.ErrNotFound)) {
				t.Fatalf("Delete(%s) with exists=%v: %v", name, exists, err)
			}
			if exists {
				delete(next, name)
				m.write(reflector.Deleted, name, old, next)
			}
		case 4:
			items, version, err := listAll(t.Context(), src, int64(arg%4+1))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.list(m.version), describeItems(items)); diff != "" || version != strconv.FormatUint(m.version, 10) {
				t.Fatalf("paginated List() at %s mismatch (-want +got):\n%s", version, diff)
			}
		case 5:
			src.Compact()
			m.oldest = m.version
		case 6, 9:
			r := uint64(arg) % (m.version + 2)
			streaming := op == 9
			w, err := src.Watch(t.Context(), reflector.WatchOptions{
				ResourceVersion: strconv.FormatUint(r, 10), SendInitialEvents: streaming,
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := drain(w)
			w.Stop()
			if diff := cmp.Diff(m.watch(r, streaming), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Watch(from %d, streaming %v) at %d mismatch (-want +got):\n%s", r, streaming, m.version, diff)
			}
		case 7:
			res, err := src.List(t.Context(), reflector.ListOptions{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.list(m.version)[:len(res.Items)], describeItems(res.Items)); diff != "" {
				t.Fatalf("first page mismatch (-want +got):\n%s", diff)
			}
			tok, tokAt, tokSeen = res.Continue, m.version, len(res.Items)
		case 8:
			if tok == "" {
				continue
			}
			res, err := src.List(t.Context(), reflector.ListOptions{Limit: 1, Continue: tok})
			if tokAt < m.oldest {
				if !errors.Is(err, reflector.ErrExpired) {
					t.Fatalf("continue at %d, oldest %d: %v, want ErrExpired", tokAt, m.oldest, err)
				}
				tok = ""
				continue
			}
			if err != nil {
				t.Fatalf("continue at %d, oldest %d: %v", tokAt, m.oldest, err)
			}
			want := m.list(tokAt)[tokSeen : tokSeen+1]
			if diff := cmp.Diff(want, describeItems(res.Items)); diff != "" || res.ResourceVersion != strconv.FormatUint(tokAt, 10) {
				t.Fatalf("page %d at %s of the list at %d mismatch (-want +got):\n%s", tokSeen, res.ResourceVersion, tokAt, diff)
			}
			tok, tokSeen = res.Continue, tokSeen+1
		}
		if err := src.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
	if got := src.ResourceVersion(); got != strconv.FormatUint(m.version, 10) {
		t.Fatalf("source at version %s, model at %d", got, m.version)
	}
}
