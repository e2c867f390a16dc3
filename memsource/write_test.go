package memsource_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/keys"
	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// state renders the source's content as "name=value@version" in key order.
func state(t *testing.T, src *memsource.Source[*item]) []string {
	t.Helper()
	res, err := src.List(t.Context(), reflector.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	out := make([]string, len(res.Items))
	for i, it := range res.Items {
		out[i] = fmt.Sprintf("%s=%d@%s", it.Name, it.Value, it.Version)
	}
	return out
}

func TestWrites(t *testing.T) {
	// Every case starts from a source holding a (version 2) and b (version 3).
	tests := []struct {
		name        string
		write       func(*memsource.Source[*item]) (*item, error)
		wantErr     error  // nil: success
		wantErrText string // substring of the error, when wantErr is set
		wantObj     string // name=value@version of the returned object
		wantState   []string
	}{
		{
			name:      "create new key",
			write:     func(s *memsource.Source[*item]) (*item, error) { return s.Create(newItem("c", 7)) },
			wantObj:   "c=7@4",
			wantState: []string{"a=0@2", "b=0@3", "c=7@4"},
		},
		{
			name: "create ignores the version it is given",
			write: func(s *memsource.Source[*item]) (*item, error) {
				return s.Create(&item{Namespace: "ns", Name: "c", Version: "99"})
			},
			wantObj:   "c=0@4",
			wantState: []string{"a=0@2", "b=0@3", "c=0@4"},
		},
		{
			name:        "create existing key",
			write:       func(s *memsource.Source[*item]) (*item, error) { return s.Create(newItem("a", 7)) },
			wantErr:     memsource.ErrAlreadyExists,
			wantErrText: "ns/a",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
		{
			name:      "update without version overwrites",
			write:     func(s *memsource.Source[*item]) (*item, error) { return s.Update(newItem("a", 7)) },
			wantObj:   "a=7@4",
			wantState: []string{"a=7@4", "b=0@3"},
		},
		{
			name: "update at the stored version",
			write: func(s *memsource.Source[*item]) (*item, error) {
				return s.Update(&item{Namespace: "ns", Name: "b", Version: "3", Value: 7})
			},
			wantObj:   "b=7@4",
			wantState: []string{"a=0@2", "b=7@4"},
		},
		{
			name: "update from a stale read conflicts",
			write: func(s *memsource.Source[*item]) (*item, error) {
				return s.Update(&item{Namespace: "ns", Name: "b", Version: "2", Value: 7})
			},
			wantErr:     memsource.ErrConflict,
			wantErrText: "ns/b is at version 3, the update is based on 2",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
		{
			name:        "update missing key",
			write:       func(s *memsource.Source[*item]) (*item, error) { return s.Update(newItem("c", 7)) },
			wantErr:     memsource.ErrNotFound,
			wantErrText: "ns/c",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
		{
			name:      "delete returns the last state",
			write:     func(s *memsource.Source[*item]) (*item, error) { return s.Delete("ns/a") },
			wantObj:   "a=0@2",
			wantState: []string{"b=0@3"},
		},
		{
			name:        "delete missing key",
			write:       func(s *memsource.Source[*item]) (*item, error) { return s.Delete("ns/c") },
			wantErr:     memsource.ErrNotFound,
			wantErrText: "ns/c",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
		{
			name:      "create without name",
			write:     func(s *memsource.Source[*item]) (*item, error) { return s.Create(&item{Namespace: "ns"}) },
			wantErr:   keys.ErrEmptyName,
			wantState: []string{"a=0@2", "b=0@3"},
		},
		{
			name:        "create nil pointer is an error, not a panic",
			write:       func(s *memsource.Source[*item]) (*item, error) { return s.Create(nil) },
			wantErrText: "missing object",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
		{
			name:        "update nil pointer is an error, not a panic",
			write:       func(s *memsource.Source[*item]) (*item, error) { return s.Update(nil) },
			wantErrText: "missing object",
			wantState:   []string{"a=0@2", "b=0@3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memsource.New(memsource.Options[*item]{})
			mustCreate(t, src, "a", "b")
			before := src.ResourceVersion()
			got, err := tt.write(src)
			switch {
			case tt.wantErr == nil && tt.wantErrText == "":
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				if s := fmt.Sprintf("%s=%d@%s", got.Name, got.Value, got.Version); s != tt.wantObj {
					t.Errorf("write returned %s, want %s", s, tt.wantObj)
				}
			default:
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) ||
					!strings.Contains(err.Error(), tt.wantErrText) {
					t.Fatalf("write error = %v, want %v containing %q", err, tt.wantErr, tt.wantErrText)
				}
				if got != nil {
					t.Errorf("failed write returned %v, want nil", got)
				}
				if v := src.ResourceVersion(); v != before {
					t.Errorf("failed write moved the version from %s to %s", before, v)
				}
			}
			if diff := cmp.Diff(tt.wantState, state(t, src)); diff != "" {
				t.Errorf("List() mismatch (-want +got):\n%s", diff)
			}
			if err := src.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestVersionsIncreaseByOnePerWrite(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{HistorySize: 8})
	if v := src.ResourceVersion(); v != "1" {
		t.Fatalf("new source at version %s, want 1", v)
	}
	last := 1
	for i := range 300 {
		name := "o" + strconv.Itoa(i%7)
		var (
			got *item
			err error
		)
		switch i % 3 {
		case 0:
			got, err = src.Create(newItem(name, i))
		case 1:
			got, err = src.Update(newItem(name, i))
		case 2:
			got, err = src.Delete("ns/" + name)
		}
		if err != nil {
			// Writes to keys in the wrong state fail and must not count.
			if v := src.ResourceVersion(); v != strconv.Itoa(last) {
				t.Fatalf("step %d: failed write moved the version to %s, want %d", i, v, last)
			}
			continue
		}
		last++
		if want := strconv.Itoa(last); src.ResourceVersion() != want || (i%3 != 2 && got.Version != want) {
			t.Fatalf("step %d: source at %s, object at %s, want %s", i, src.ResourceVersion(), got.Version, want)
		}
	}
	if last < 100 {
		t.Fatalf("only %d writes succeeded; the test exercises too little", last-1)
	}
	if err := src.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestOwnership(t *testing.T) {
	t.Run("shared without Clone", func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{})
		in := newItem("a", 1)
		out, err := src.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := src.Get("ns/a")
		if in != out || out != got || in.Version != "2" {
			t.Errorf("Create and Get returned copies or did not stamp the argument: in=%p out=%p get=%p version %q",
				in, out, got, in.Version)
		}
	})
	t.Run("copied with Clone", func(t *testing.T) {
		src := memsource.New(memsource.Options[*item]{Clone: cloneItem})
		in := newItem("a", 1)
		out, err := src.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		if in.Version != "" {
			t.Errorf("Create stamped its argument (%q) although the source clones", in.Version)
		}
		in.Value, out.Value = 100, 200
		got, _ := src.Get("ns/a")
		got.Value = 300
		res, err := src.List(t.Context(), reflector.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res.Items[0].Value = 400
		again, _ := src.Get("ns/a")
		if again.Value != 1 || again.Version != "2" {
			t.Errorf("stored object changed through a handed-out copy: %+v", again)
		}
	})
}

func TestGet(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{Clone: cloneItem})
	mustCreate(t, src, "a")
	if got, ok := src.Get("ns/a"); !ok || got.Name != "a" {
		t.Errorf(`Get("ns/a") = %v, %v; want a, true`, got, ok)
	}
	if got, ok := src.Get("ns/b"); ok || got != nil {
		t.Errorf(`Get("ns/b") = %v, %v; want nil, false`, got, ok)
	}
	if n := src.Len(); n != 1 {
		t.Errorf("Len() = %d, want 1", n)
	}
}

func TestKeyFunc(t *testing.T) {
	byValue := func(i *item) (string, error) {
		if i.Value < 0 {
			return "", errors.New("negative value")
		}
		return strconv.Itoa(i.Value), nil
	}
	src := memsource.New(memsource.Options[*item]{KeyFunc: byValue})
	if _, err := src.Create(&item{Name: "x", Value: 5}); err != nil {
		t.Fatal(err)
	}
	if got, ok := src.Get("5"); !ok || got.Name != "x" {
		t.Errorf(`Get("5") = %v, %v; want x, true`, got, ok)
	}
	if _, err := src.Create(&item{Name: "y", Value: -1}); err == nil || !strings.Contains(err.Error(), "negative value") {
		t.Errorf("Create with failing key func: error %v, want the key func's", err)
	}
}

func TestOpaqueVersions(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{OpaqueVersions: true})
	mustCreate(t, src, "a")
	v := src.ResourceVersion()
	if _, err := strconv.ParseUint(v, 10, 64); err == nil {
		t.Errorf("opaque version %q parses as a number", v)
	}
	// The opaque version still works as a watch and list argument.
	if _, err := src.List(t.Context(), reflector.ListOptions{ResourceVersion: v}); err != nil {
		t.Errorf("List at %s: %v", v, err)
	}
	if _, err := src.List(t.Context(), reflector.ListOptions{ResourceVersion: "2"}); !errors.Is(err, memsource.ErrInvalidVersion) {
		t.Errorf("List at decimal 2 on an opaque source: %v, want ErrInvalidVersion", err)
	}
}

// DeleteObject deletes by the object's key, whatever its version or
// content, and reports a nil object or an absent key as errors.
func TestDeleteObject(t *testing.T) {
	src := memsource.New(memsource.Options[*item]{})
	mustCreate(t, src, "a")
	stale := newItem("a", 7) // no version, other content: only the key matters
	got, err := src.DeleteObject(stale)
	if err != nil || got == nil || got.Name != "a" || got.Value != 0 {
		t.Fatalf("DeleteObject(a) = %+v, %v; want the stored a", got, err)
	}
	if src.Len() != 0 {
		t.Errorf("Len() = %d after DeleteObject, want 0", src.Len())
	}
	if _, err := src.DeleteObject(stale); !errors.Is(err, memsource.ErrNotFound) {
		t.Errorf("DeleteObject of a deleted object = %v, want ErrNotFound", err)
	}
	if _, err := src.DeleteObject(nil); err == nil {
		t.Error("DeleteObject(nil) = nil error, want an error")
	}
}
