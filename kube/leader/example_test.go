package leader_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

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
