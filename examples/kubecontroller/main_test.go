package main

import (
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	detectortest.DefaultOn() // informers check that nothing modifies their cached objects
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
