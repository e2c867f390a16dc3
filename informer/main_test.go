package informer_test

import (
	"os"
	"testing"

	"github.com/typedcache/typedcache/informer"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Every informer of these tests checks that nothing modifies its
	// cached objects, unless the environment says otherwise.
	if _, set := os.LookupEnv(informer.MutationDetectorEnv); !set {
		os.Setenv(informer.MutationDetectorEnv, "true")
	}
	goleak.VerifyTestMain(m)
}
