// Package integration tests package kube against a real kube-apiserver and
// etcd. The tests run only when TYPEDCACHE_KUBECONFIG names a kubeconfig;
// scripts/kube-apiserver/ci builds and starts a throwaway server and runs
// them. Without it every test skips, so plain `go test ./...` stays fast.
//
// Tests that restart the apiserver or compact etcd need a server started by
// scripts/kube-apiserver/cluster (it records how to restart it next to the
// kubeconfig) and TYPEDCACHE_ETCD_ENDPOINT; they skip otherwise, so the
// suite can also be pointed at any disposable cluster.
package integration

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// client-go's shared HTTP transports keep idle connections, and
		// klog its flush daemon, for the life of the process.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("golang.org/x/net/http2.(*ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("k8s.io/klog/v2.(*flushDaemon).run.func1"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}
