// Package integrationtest runs memsource, reflector, deltafifo, indexer,
// informer and queue together, under randomised faults, in synctest
// bubbles, and checks the guarantees that only show end to end: no lost or
// duplicated notification, no lost queue add, no list or watch at a version
// the source has not reached, and a bounded number of relists per fault.
package integrationtest

import (
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	detectortest.DefaultOn() // informers check that nothing modifies their cached objects
	goleak.VerifyTestMain(m)
}
