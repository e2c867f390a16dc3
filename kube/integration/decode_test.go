package integration

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// TestDecodingMatchesClientGo is the differential test of the adapter's
// own decoding: for ConfigMaps and Pods (with the managedFields of two
// writers), on protobuf and JSON, the objects a source decodes itself from
// the server's list, streaming list and watch responses are deeply equal
// to the ones client-go's typed client decodes from the same server with
// Options.DecodeWithClient, and DropManagedFields differs from them only in
// managedFields.
func TestDecodingMatchesClientGo(t *testing.T) {
	c := newCluster(t)
	t.Run("configmaps", func(t *testing.T) { testDecoding(t, c, configMaps) })
	t.Run("pods", func(t *testing.T) { testDecoding(t, c, pods) })
}

func testDecoding[T kube.Object, L kube.ListObject](t *testing.T, c *cluster, k benchKind[T, L]) {
	const n, updates = 20, 40
	ns := c.namespace(t)
	admin := c.client(t, nil)
	createAll(t, admin, k, ns, n)
	ctx := t.Context()
	for pass, cd := range codecs {
		t.Run(cd.name, func(t *testing.T) {
			client := k.client(cd.clientset(t, c.cfg), ns)
			ours := kube.SourceWithOptions[T](client, kube.Options{})
			dropped := kube.SourceWithOptions[T](client, kube.Options{DropManagedFields: true})
			theirs := kube.SourceWithOptions[T](client, kube.Options{DecodeWithClient: true})

			want := listAll(t, theirs)
			if len(want) != n {
				t.Fatalf("client-go decoded %d objects, want %d", len(want), n)
			}
			if len(want[0].GetManagedFields()) == 0 {
				t.Fatal("the server's objects have no managedFields: the test would not check them")
			}
			equalObjects(t, "list", want, listAll(t, ours))
			readOnly := listRead(t, ours, reflector.ListOptions{ReadOnly: true})
			equalObjects(t, "read-only list", want, readOnly)
			sharesEqualLabels(t, readOnly)
			withoutManaged := make([]T, len(want))
			for i, obj := range want {
				withoutManaged[i] = obj.DeepCopyObject().(T)
				withoutManaged[i].SetManagedFields(nil)
			}
			equalObjects(t, "list without managedFields", withoutManaged, listAll(t, dropped))
			equalObjects(t, "streaming list", initialEvents(t, theirs), initialEvents(t, ours))

			// Both watch the same updates from the same version.
			list, err := theirs.List(ctx, reflector.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			from := reflector.WatchOptions{ResourceVersion: list.ResourceVersion}
			wTheirs, wOurs := watchFrom(t, theirs, from), watchFrom(t, ours, from)
			from.ReadOnly = true
			wReadOnly := watchFrom(t, ours, from)
			// Each pass writes rounds of its own, so that every update
			// changes its object, in whatever order the writers land, and
			// the server sends an event for each.
			rounds := updates / n
			update := func(i int) error { return k.update(ctx, admin, ns, i%n, pass*rounds+i/n+1) }
			if err := parallel(updates, writers, update); err != nil {
				t.Fatal(err)
			}
			wantEvents := nextObjects(t, wTheirs, updates)
			equalObjects(t, "watch", wantEvents, nextObjects(t, wOurs, updates))
			equalObjects(t, "read-only watch", wantEvents, nextObjects(t, wReadOnly, updates))
		})
	}
}

// listAll lists every object of src, sorted by name.
func listAll[T kube.Object](t *testing.T, src reflector.ListerWatcher[T]) []T {
	t.Helper()
	return listRead(t, src, reflector.ListOptions{})
}

// listRead lists every object of src with opts, sorted by name.
func listRead[T kube.Object](t *testing.T, src reflector.ListerWatcher[T], opts reflector.ListOptions) []T {
	t.Helper()
	res, err := src.List(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sortedByName(res.Items)
}

// sharesEqualLabels fails unless objects with equal labels share one map
// of them, as objects decoded for a read-only caller do.
func sharesEqualLabels[T kube.Object](t *testing.T, objs []T) {
	t.Helper()
	first := map[string]uintptr{} // by labels: the first object's map
	shared := 0
	for _, o := range objs {
		labels := o.GetLabels()
		text, err := json.Marshal(labels)
		if err != nil {
			t.Fatal(err)
		}
		id := uintptr(reflect.ValueOf(labels).UnsafePointer())
		if f, ok := first[string(text)]; ok && f == id {
			shared++
		}
		if _, ok := first[string(text)]; !ok {
			first[string(text)] = id
		}
	}
	if want := len(objs) - len(first); shared != want {
		t.Errorf("%d of %d objects share the labels of an earlier one, want %d", shared, len(objs), want)
	}
}

// initialEvents reads a streaming list of src up to its end, and returns
// its objects sorted by name.
func initialEvents[T kube.Object](t *testing.T, src reflector.ListerWatcher[T]) []T {
	t.Helper()
	w, err := src.Watch(t.Context(), reflector.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var objs []T
	for {
		ev, err := w.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == reflector.Bookmark && ev.InitialEventsEnd {
			return sortedByName(objs)
		}
		if ev.Type == reflector.Added {
			objs = append(objs, ev.Object)
		}
	}
}

func watchFrom[T kube.Object](t *testing.T, src reflector.ListerWatcher[T], opts reflector.WatchOptions) reflector.Watch[T] {
	t.Helper()
	w, err := src.Watch(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// nextObjects returns the objects of the next n events of w, in order,
// failing if they have not all come within a minute.
func nextObjects[T kube.Object](t *testing.T, w reflector.Watch[T], n int) []T {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var objs []T
	for len(objs) < n {
		ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("after %d events: %v", len(objs), err)
		}
		if ev.Type != reflector.Bookmark {
			objs = append(objs, ev.Object)
		}
	}
	return objs
}

func sortedByName[T kube.Object](objs []T) []T {
	slices.SortFunc(objs, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
	return objs
}

// equalObjects fails unless got is deeply equal to want, object by object
// (reflect.DeepEqual: every field, unexported ones included).
func equalObjects[T kube.Object](t *testing.T, what string, want, got []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d objects, client-go decoded %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			w, _ := json.MarshalIndent(want[i], "", " ")
			g, _ := json.MarshalIndent(got[i], "", " ")
			t.Fatalf("%s: object %d (%s) differs from client-go's (-client-go +ours):\n%s\n(their JSON forms are equal: %v)",
				what, i, want[i].GetName(), cmp.Diff(string(w), string(g)), string(w) == string(g))
		}
	}
}
