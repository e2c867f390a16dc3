package measure

import (
	"slices"
	"testing"
	"time"
)

// Latencies records one duration per numbered sample. Each sample slot is
// written by one goroutine at most once, so recording needs no lock; read
// the result only after every writer is done.
type Latencies struct {
	ns []int64
}

// NewLatencies returns room for n samples.
func NewLatencies(n int) *Latencies {
	return &Latencies{ns: make([]int64, n)}
}

// Record stores sample i. Out-of-range samples are ignored.
func (l *Latencies) Record(i int, d time.Duration) {
	if i >= 0 && i < len(l.ns) {
		l.ns[i] = int64(d)
	}
}

// Percentile returns the p-th percentile (0 < p <= 100) of the samples
// recorded so far, in nanoseconds.
func (l *Latencies) Percentile(p float64) float64 {
	sorted := slices.Clone(l.ns)
	slices.Sort(sorted)
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	i = min(max(i, 0), len(sorted)-1)
	return float64(sorted[i])
}

// Report reports the samples' p50 and p99 as prefix+"p50-ns" and
// prefix+"p99-ns".
func (l *Latencies) Report(b *testing.B, prefix string) {
	b.ReportMetric(l.Percentile(50), prefix+"p50-ns")
	b.ReportMetric(l.Percentile(99), prefix+"p99-ns")
}
