package prometheus_test

import (
	"os"
	"testing"

	"github.com/typedcache/typedcache/informer"
	"go.uber.org/goleak"
)

// TestMain turns the cache mutation detector on for every informer of the
// tests, unless the environment says otherwise, then checks for leaks.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv(informer.MutationDetectorEnv); !set {
		os.Setenv(informer.MutationDetectorEnv, "true")
	}
	goleak.VerifyTestMain(m)
}
