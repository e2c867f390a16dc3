package deltafifo_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/typedcache/typedcache/deltafifo"
)

// handed is what one Handoff handed to its processor.
type handed struct {
	Key   string
	Delta deltafifo.Delta[thing]
}

func TestHandoff(t *testing.T) {
	tests := []struct {
		name       string
		reason     string
		known      []thing
		before     []op
		typ        deltafifo.DeltaType
		obj        thing
		wantHanded []handed
		wantQueued []popped
	}{
		{
			name:       "idle FIFO hands off",
			typ:        deltafifo.Updated,
			obj:        th("a", 2),
			wantHanded: []handed{{"a", updated("a", 2)}},
		},
		{
			name:       "queued key: the delta is queued",
			reason:     "another key is ready, so the delta must wait its turn",
			before:     []op{opAdd("b", 1)},
			typ:        deltafifo.Added,
			obj:        th("a", 1),
			wantQueued: []popped{{"b", ds(added("b", 1)), false}, {"a", ds(added("a", 1)), false}},
		},
		{
			name:       "known key's deletion is handed off",
			known:      []thing{th("a", 1)},
			typ:        deltafifo.Deleted,
			obj:        th("a", 2),
			wantHanded: []handed{{"a", deleted("a", 2)}},
		},
		{
			name:   "unknown key's deletion is dropped",
			reason: "as Delete drops it: there is nothing to delete",
			typ:    deltafifo.Deleted,
			obj:    th("a", 2),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: newKnown(tt.known...)})
			for _, o := range tt.before {
				o(t, f)
			}
			var got []handed
			err := f.Handoff(tt.typ, tt.obj, func(key string, d deltafifo.Delta[thing]) error {
				got = append(got, handed{key, d})
				return nil
			})
			if err != nil {
				t.Fatalf("Handoff(%v, %+v) = %v", tt.typ, tt.obj, err)
			}
			if diff := cmp.Diff(tt.wantHanded, got); diff != "" {
				t.Errorf("Handoff(%v, %+v) handed mismatch (-want +got):\n%s", tt.typ, tt.obj, diff)
			}
			mustCheck(t, f)
			diffPopped(t, "popAll() after Handoff", tt.wantQueued, popAll(t, f))
		})
	}
}

func TestHandoffErrors(t *testing.T) {
	cause := errors.New("cache refused")
	tests := []struct {
		name    string
		typ     deltafifo.DeltaType
		obj     thing
		process error
		wantErr error // matched with errors.Is; nil means no error
		// wantAny expects some error, not a sentinel.
		wantAny bool
	}{
		{name: "processor error is returned", typ: deltafifo.Added, obj: th("a", 1), process: cause, wantErr: cause},
		{name: "key error", typ: deltafifo.Added, obj: thing{}, wantErr: errNoName},
		{name: "transform error", typ: deltafifo.Added, obj: th("a", -1), wantErr: errTransform},
		{name: "Replaced is not a handoff type", typ: deltafifo.Replaced, obj: th("a", 1), wantAny: true},
		{name: "Sync is not a handoff type", typ: deltafifo.Sync, obj: th("a", 1), wantAny: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{Transform: tagTransform})
			err := f.Handoff(tt.typ, tt.obj, func(string, deltafifo.Delta[thing]) error { return tt.process })
			switch {
			case tt.wantAny && err == nil:
				t.Errorf("Handoff(%v, %+v) = nil, want an error", tt.typ, tt.obj)
			case !tt.wantAny && !errors.Is(err, tt.wantErr):
				t.Errorf("Handoff(%v, %+v) = %v, want %v", tt.typ, tt.obj, err, tt.wantErr)
			}
			if n := f.Len(); n != 0 {
				t.Errorf("Len() = %d after Handoff(%v, %+v) failed, want 0", n, tt.typ, tt.obj)
			}
			mustCheck(t, f)
		})
	}
	t.Run("closed", func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		f.Close()
		err := f.Handoff(deltafifo.Added, th("a", 1), func(string, deltafifo.Delta[thing]) error {
			t.Error("processor called after Close")
			return nil
		})
		if !errors.Is(err, deltafifo.ErrClosed) {
			t.Errorf("Handoff() after Close = %v, want %v", err, deltafifo.ErrClosed)
		}
	})
}

// A requeued or panicking handoff queues its delta in front of the key's
// deltas recorded while it ran.
func TestHandoffRequeue(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		known  []thing
		typ    deltafifo.DeltaType
		obj    thing
		during []op
		panics bool
		want   []popped
	}{
		{
			name: "alone",
			typ:  deltafifo.Added,
			obj:  th("a", 1),
			want: []popped{{"a", ds(added("a", 1)), false}},
		},
		{
			name:   "in front of newer deltas",
			typ:    deltafifo.Added,
			obj:    th("a", 1),
			during: []op{opAdd("b", 1), opUpdate("a", 2)},
			want:   []popped{{"b", ds(added("b", 1)), false}, {"a", ds(added("a", 1), updated("a", 2)), false}},
		},
		{
			name:   "deletions collapse",
			reason: "the handed-off deletion is the older one and stays",
			known:  []thing{th("a", 1)},
			typ:    deltafifo.Deleted,
			obj:    th("a", 2),
			during: []op{opDelete("a", 3)},
			want:   []popped{{"a", ds(deleted("a", 2)), false}},
		},
		{
			name:   "panic",
			typ:    deltafifo.Updated,
			obj:    th("a", 2),
			during: []op{opUpdate("a", 3)},
			panics: true,
			want:   []popped{{"a", ds(updated("a", 2), updated("a", 3)), false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: newKnown(tt.known...)})
			func() {
				defer func() {
					if r := recover(); (r != nil) != tt.panics {
						t.Errorf("recovered %v, want a panic: %v", r, tt.panics)
					}
				}()
				err := f.Handoff(tt.typ, tt.obj, func(string, deltafifo.Delta[thing]) error {
					for _, o := range tt.during {
						o(t, f)
					}
					if tt.panics {
						panic("boom")
					}
					return fmt.Errorf("busy: %w", deltafifo.ErrRequeue)
				})
				if err != nil {
					t.Errorf("Handoff() = %v after a requeue, want nil", err)
				}
			}()
			mustCheck(t, f)
			diffPopped(t, "popAll() after requeue", tt.want, popAll(t, f))
		})
	}
}

// While a handoff runs, Pop takes nothing, a Delete of its key is kept and
// Replace infers the key's deletion from the handed-off delta.
func TestHandoffExcludesPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deltafifo.New(thingKey, deltafifo.Options[thing]{})
		release := make(chan struct{})
		done := make(chan error)
		go func() {
			done <- f.Handoff(deltafifo.Added, th("a", 1), func(string, deltafifo.Delta[thing]) error {
				<-release
				return nil
			})
		}()
		synctest.Wait()
		if err := f.Handoff(deltafifo.Updated, th("a", 2), func(string, deltafifo.Delta[thing]) error {
			t.Error("second Handoff processed during the first")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		opDelete("a", 3)(t, f)
		pop := startPop(t.Context(), f, nil)
		synctest.Wait()
		if pop.returned() {
			t.Fatalf("Pop returned %+v during a handoff", pop.got)
		}
		close(release)
		if err := <-done; err != nil {
			t.Errorf("Handoff() = %v", err)
		}
		synctest.Wait()
		if !pop.returned() {
			t.Fatal("Pop still waiting after the handoff ended")
		}
		diffPopped(t, "Pop after the handoff", []popped{{"a", ds(updated("a", 2), deleted("a", 3)), false}}, []popped{pop.got})
		mustCheck(t, f)
	})
}

func TestHandoffDuringReplace(t *testing.T) {
	tests := []struct {
		name string
		list []thing
		typ  deltafifo.DeltaType
		want []popped
	}{
		{
			name: "listed key",
			list: []thing{th("a", 5)},
			typ:  deltafifo.Added,
			want: []popped{{"a", ds(replaced("a", 5)), false}},
		},
		{
			name: "unlisted key: deletion inferred from the handed-off delta",
			typ:  deltafifo.Added,
			want: []popped{{"a", ds(inferred("a", 1)), false}},
		},
		{
			name: "unlisted key handed off as a deletion: nothing to infer",
			typ:  deltafifo.Deleted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newKnown(th("a", 0))
			f := deltafifo.New(thingKey, deltafifo.Options[thing]{KnownObjects: k})
			err := f.Handoff(tt.typ, th("a", 1), func(_ string, d deltafifo.Delta[thing]) error {
				if err := f.Replace(tt.list, "9"); err != nil {
					t.Errorf("Replace() = %v", err)
				}
				k.apply(ds(d))
				return nil
			})
			if err != nil {
				t.Fatalf("Handoff() = %v", err)
			}
			mustCheck(t, f)
			diffPopped(t, "popAll() after Replace during a handoff", tt.want, popAll(t, f))
		})
	}
}
