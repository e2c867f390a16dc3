package controller_test

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	// controller-runtime logs through a global logger, and warns on
	// stderr when none was set: discard its records, as typedcache's
	// controllers here discard theirs.
	ctrllog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
