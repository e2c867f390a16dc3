// Package detectortest turns the informers' cache mutation detector on
// for a package's tests, so that the project's own code is checked by it.
package detectortest

import (
	"os"

	"github.com/typedcache/typedcache/informer"
)

// DefaultOn sets informer.MutationDetectorEnv to "true" unless the
// environment already sets it, so that every informer the tests create
// checks that nothing modifies its cached objects, and a run can still
// turn it off. Call it from TestMain, before m.Run.
func DefaultOn() {
	if _, set := os.LookupEnv(informer.MutationDetectorEnv); !set {
		os.Setenv(informer.MutationDetectorEnv, "true")
	}
}
