package prometheus_test

import (
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

// TestMain turns the cache mutation detector on for every informer of the
// tests, unless the environment says otherwise, then checks for leaks.
func TestMain(m *testing.M) {
	detectortest.DefaultOn()
	goleak.VerifyTestMain(m)
}
