package fanout

import "testing"

// failOnPanic is a panic report that fails the test.
func failOnPanic(t *testing.T) func(Panic) {
	return func(p Panic) { t.Fatalf("delivery of %q panicked: %s", p.Key, p.Value) }
}
