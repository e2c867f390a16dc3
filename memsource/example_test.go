package memsource_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/typedcache/typedcache/memsource"
	"github.com/typedcache/typedcache/reflector"
)

// ConfigMap stands for any Kubernetes-style type: *corev1.ConfigMap has
// the same four methods through its ObjectMeta.
type ConfigMap struct {
	Namespace, Name, ResourceVersion string
	Data                             string
}

func (c *ConfigMap) GetNamespace() string        { return c.Namespace }
func (c *ConfigMap) GetName() string             { return c.Name }
func (c *ConfigMap) GetResourceVersion() string  { return c.ResourceVersion }
func (c *ConfigMap) SetResourceVersion(v string) { c.ResourceVersion = v }

func ExampleNew() {
	src := memsource.New(memsource.Options[*ConfigMap]{})
	a, _ := src.Create(&ConfigMap{Namespace: "prod", Name: "a", Data: "x"})
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "b"})
	fmt.Println("created a at", a.ResourceVersion)

	// Updates are optimistic: one based on a stale read conflicts.
	stale := &ConfigMap{Namespace: "prod", Name: "a", ResourceVersion: "1", Data: "y"}
	_, err := src.Update(stale)
	fmt.Println("stale update conflicts:", errors.Is(err, memsource.ErrConflict))
	fresh := &ConfigMap{Namespace: "prod", Name: "a", ResourceVersion: a.ResourceVersion, Data: "y"}
	a, _ = src.Update(fresh)
	fmt.Println("updated a at", a.ResourceVersion)

	res, _ := src.List(context.Background(), reflector.ListOptions{Limit: 1})
	fmt.Println("first page:", res.Items[0].Name, "at", res.ResourceVersion, "more:", res.Continue != "")
	// Output:
	// created a at 2
	// stale update conflicts: true
	// updated a at 4
	// first page: a at 4 more: true
}

func ExampleSource_Watch() {
	ctx := context.Background()
	src := memsource.New(memsource.Options[*ConfigMap]{})
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "a"})
	from := src.ResourceVersion()
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "b"})
	_, _ = src.Delete("prod/a")

	// A watch from a past version replays the writes since, then waits.
	w, _ := src.Watch(ctx, reflector.WatchOptions{ResourceVersion: from})
	defer w.Stop()
	for range 2 {
		ev, err := w.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Type, ev.Object.Name, "at", ev.ResourceVersion)
	}
	// Output:
	// Added b at 3
	// Deleted a at 4
}

// mirror is the code under test in Example_controllerTest: a minimal
// reflector that keeps a map in step with a source.
type mirror struct {
	lw      reflector.ListerWatcher[*ConfigMap]
	state   map[string]string
	version string // "" until listed, and after an expiry
}

// syncTo lists, then watches from the list's version, until it has reached
// version target. When a watch ends it watches again from the last version
// seen; when that version expired it lists again.
func (m *mirror) syncTo(ctx context.Context, target string) error {
	for m.version != target {
		if m.version == "" {
			res, err := m.lw.List(ctx, reflector.ListOptions{})
			if err != nil {
				fmt.Println("list failed:", err)
				continue
			}
			m.state = map[string]string{}
			for _, cm := range res.Items {
				m.state[cm.Name] = cm.Data
			}
			m.version = res.ResourceVersion
			fmt.Printf("listed %d at %s\n", len(res.Items), m.version)
			continue
		}
		w, err := m.lw.Watch(ctx, reflector.WatchOptions{ResourceVersion: m.version})
		if err != nil {
			return err
		}
		n := 0
		for m.version != target {
			ev, err := w.Next(ctx)
			if errors.Is(err, reflector.ErrExpired) {
				fmt.Println("version", m.version, "expired")
				m.version = ""
			}
			if err != nil {
				break
			}
			switch ev.Type {
			case reflector.Deleted:
				delete(m.state, ev.Object.Name)
			default:
				m.state[ev.Object.Name] = ev.Object.Data
			}
			n++
			m.version = ev.ResourceVersion
		}
		w.Stop()
		if n > 0 {
			fmt.Println("watch ended after", n, "events at", m.version)
		}
	}
	return nil
}

// Example_controllerTest tests a controller's list-and-watch loop against
// the faults of a real server: a failed list, watches closed every two
// events, and a compaction that expires the version the controller holds.
func Example_controllerTest() {
	ctx := context.Background()
	src := memsource.New(memsource.Options[*ConfigMap]{
		Faults: memsource.Faults{FailLists: 1, CloseWatchesAfter: 2},
	})
	for _, name := range []string{"a", "b", "c"} {
		_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: name, Data: "v1"})
	}
	m := &mirror{lw: src}
	if err := m.syncTo(ctx, src.ResourceVersion()); err != nil {
		fmt.Println(err)
		return
	}

	// Five writes: the watches close every two events, and the mirror
	// resumes each time from the version it holds.
	for _, name := range []string{"a", "b", "c"} {
		_, _ = src.Update(&ConfigMap{Namespace: "prod", Name: name, Data: "v2"})
	}
	_, _ = src.Delete("prod/b")
	_, _ = src.Create(&ConfigMap{Namespace: "prod", Name: "d", Data: "v1"})
	if err := m.syncTo(ctx, src.ResourceVersion()); err != nil {
		fmt.Println(err)
		return
	}

	// A compaction leaves the mirror's version behind: it must relist.
	_, _ = src.Update(&ConfigMap{Namespace: "prod", Name: "d", Data: "v3"})
	src.Compact()
	if err := m.syncTo(ctx, src.ResourceVersion()); err != nil {
		fmt.Println(err)
		return
	}

	var objects []string
	for _, name := range slices.Sorted(maps.Keys(m.state)) {
		objects = append(objects, name+"="+m.state[name])
	}
	fmt.Println(strings.Join(objects, " "))
	st := src.Stats()
	fmt.Printf("failed lists %d, expired %d, closed watches %d\n", st.FailedLists, st.Expired, st.ClosedWatches)
	// Output:
	// list failed: memsource: injected list failure: memsource: injected fault
	// listed 3 at 4
	// watch ended after 2 events at 6
	// watch ended after 2 events at 8
	// watch ended after 1 events at 9
	// version 9 expired
	// listed 3 at 10
	// a=v2 c=v2 d=v3
	// failed lists 1, expired 1, closed watches 2
}
