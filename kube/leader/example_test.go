package leader_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/typedcache/typedcache/controller"
	"github.com/typedcache/typedcache/kube/leader"
)

// Each replica of a controller runs the same program with its own
// identity (its pod name); only the one holding the Lease runs the
// controller. Here the controller stops itself at once, so that the
// example ends.
func Example() {
	cs := fake.NewClientset() // in a cluster: kubernetes.NewForConfig(cfg)
	leases := cs.CoordinationV1().Leases("kube-system")
	el, err := leader.New(leases, "my-controller", "replica-1", leader.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, shutdown := context.WithCancel(context.Background()) // signal.NotifyContext in a program
	err = el.Run(ctx, func(ctx context.Context) error {
		fmt.Println("leading as", el.Identity())
		shutdown() // a controller runs here until ctx ends: at shutdown, or when leadership is lost
		<-ctx.Done()
		return nil
	})
	fmt.Println("Run returned", err)

	l, err := leases.Get(context.Background(), "my-controller", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("released:", l.Spec.HolderIdentity == nil)
	// Output:
	// leading as replica-1
	// Run returned <nil>
	// released: true
}

// A controller.Manager runs its controllers on the replica that holds the
// Lease; its informers run on every replica, so that a new leader starts
// with warm caches. Losing the Lease makes the manager's Run return an
// error wrapping leader.ErrLost, and the program exits.
func Example_manager() {
	cs := fake.NewClientset()
	el, err := leader.New(cs.CoordinationV1().Leases("kube-system"), "my-controller", "replica-1", leader.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := controller.NewManager(nil, controller.ManagerOptions{Elector: el}) // with the informer factory in a program
	ctx, shutdown := context.WithCancel(context.Background())
	err = m.Add(controller.RunnableFunc(func(ctx context.Context) error {
		fmt.Println("controller running on", el.Leader())
		shutdown()
		<-ctx.Done()
		return nil
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Run returned", m.Run(ctx))
	// Output:
	// controller running on replica-1
	// Run returned <nil>
}
