package deltafifo_test

import (
	"context"
	"fmt"

	"github.com/typedcache/typedcache/deltafifo"
	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// Pod stands for any object type; Kubernetes types such as *corev1.Pod
// work the same way.
type Pod struct {
	Namespace, Name, ResourceVersion string
}

func (p *Pod) GetNamespace() string       { return p.Namespace }
func (p *Pod) GetName() string            { return p.Name }
func (p *Pod) GetResourceVersion() string { return p.ResourceVersion }

func ExampleDeltaFIFO_Pop() {
	f := deltafifo.New(keys.Of[*Pod], deltafifo.Options[*Pod]{})
	_ = f.Add(&Pod{Namespace: "default", Name: "web", ResourceVersion: "1"})
	_ = f.Add(&Pod{Namespace: "default", Name: "db", ResourceVersion: "2"})
	_ = f.Update(&Pod{Namespace: "default", Name: "web", ResourceVersion: "3"})
	_ = f.Delete(&Pod{Namespace: "default", Name: "web", ResourceVersion: "4"})

	for f.Len() > 0 {
		_ = f.Pop(context.Background(), func(key string, d deltafifo.Deltas[*Pod], _ bool) error {
			fmt.Print(key, ":")
			for _, d := range d {
				fmt.Print(" ", d.Type, "@", d.Object.ResourceVersion)
			}
			fmt.Println()
			return nil
		})
	}
	// Output:
	// default/web: Added@1 Updated@3 Deleted@4
	// default/db: Added@2
}

// An informer's loop: pop deltas, apply them to the cache, which is also
// the FIFO's KnownObjects, so that a relist can tell what disappeared.
func ExampleDeltaFIFO_Replace() {
	cache := indexer.New(keys.Of[*Pod], nil)
	f := deltafifo.New(keys.Of[*Pod], deltafifo.Options[*Pod]{KnownObjects: cache})

	apply := func(items []deltafifo.Item[*Pod]) error {
		for _, it := range items {
			for _, d := range it.Deltas {
				switch {
				case d.Type == deltafifo.Deleted && d.Inferred:
					fmt.Printf("%s: deletion missed, last known at %s\n", it.Key, d.Object.ResourceVersion)
					_, _, _ = cache.DeleteKey(it.Key)
				case d.Type == deltafifo.Deleted:
					fmt.Printf("%s: deleted\n", it.Key)
					_, _, _ = cache.DeleteKey(it.Key)
				default:
					fmt.Printf("%s: %s at %s (initial list: %v)\n", it.Key, d.Type, d.Object.ResourceVersion, it.InInitialList)
					_, _, _ = cache.Put(it.Key, d.Object)
				}
			}
		}
		return nil
	}
	drain := func() {
		for f.Len() > 0 {
			_ = f.PopBatch(context.Background(), 1000, apply)
		}
	}

	// The initial list.
	_ = f.Replace([]*Pod{
		{Namespace: "default", Name: "web", ResourceVersion: "1"},
		{Namespace: "default", Name: "db", ResourceVersion: "2"},
	}, "2")
	drain()
	fmt.Println("synced:", f.HasSynced())

	// The watch broke; meanwhile db was deleted. The relist shows it.
	_ = f.Replace([]*Pod{{Namespace: "default", Name: "web", ResourceVersion: "1"}}, "5")
	drain()
	// Output:
	// default/web: Replaced at 1 (initial list: true)
	// default/db: Replaced at 2 (initial list: true)
	// synced: true
	// default/web: Replaced at 1 (initial list: false)
	// default/db: deletion missed, last known at 2
}
