package controller_test

import (
	"testing"

	"github.com/typedcache/typedcache/internal/detectortest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	detectortest.DefaultOn() // informers check that no handler modifies their cached objects
	goleak.VerifyTestMain(m)
}
