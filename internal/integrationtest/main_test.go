// Package integrationtest runs memsource, reflector, deltafifo, indexer,
// informer and queue together, under randomised faults, in synctest
// bubbles, and checks the guarantees that only show end to end: no lost or
// duplicated notification, no lost queue add, no list or watch at a version
// the source has not reached, and a bounded number of relists per fault.
package integrationtest

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
