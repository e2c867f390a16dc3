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
	"flag"
	"io"
	"os"
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	detectortest.DefaultOn() // informers check that nothing modifies their cached objects
	// Clients may ask for CBOR (the benchmarks' CBOR rows); a client not
	// configured for it still asks for protobuf or JSON.
	if _, set := os.LookupEnv("KUBE_FEATURE_ClientsAllowCBOR"); !set {
		_ = os.Setenv("KUBE_FEATURE_ClientsAllowCBOR", "true")
	}
	// client-go logs through klog. The tests check what matters through
	// handlers and error hooks, so its log (including the error it prints
	// each time mode.use replaces a feature gate) is dropped unless
	// TYPEDCACHE_KLOG is set.
	if os.Getenv("TYPEDCACHE_KLOG") == "" {
		klog.InitFlags(nil)
		_ = flag.Set("logtostderr", "false")
		_ = flag.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	}
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
