package measure

import "testing"

// Compare runs the same workload through both implementations as the
// sub-benchmarks impl=typedcache and impl=client-go.
func Compare(b *testing.B, typedcache, clientGo func(b *testing.B)) {
	b.Run("impl=typedcache", typedcache)
	b.Run("impl=client-go", clientGo)
}

// Size returns n, or n/10 in -short mode (the report's -quick mode), so that
// the suite can run in a few minutes.
func Size(n int) int {
	if testing.Short() {
		return max(n/10, 1)
	}
	return n
}
