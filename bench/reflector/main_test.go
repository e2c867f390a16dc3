package reflector_test

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	// client-go logs through klog; its reflector's routine messages would
	// interleave with benchmark results.
	klog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
