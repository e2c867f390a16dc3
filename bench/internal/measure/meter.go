// Package measure holds the measuring helpers the benchmarks share: costs
// per domain item, latency percentiles and retained heap.
package measure

import (
	"runtime"
	"testing"
)

// Meter reports the costs of a benchmark per domain item (an item of a
// queue, an object of a store, an event of a watch) rather than per
// operation, so that results of different sizes read in the same units.
//
// Create it right before the b.Loop loop and call Report right after. Work
// done between Pause and Resume is excluded from time, bytes and
// allocations alike.
type Meter struct {
	b        *testing.B
	perOp    int
	unit     string
	mallocs  uint64
	bytes    uint64
	pauseAt  runtime.MemStats
	excluded struct{ mallocs, bytes uint64 }
}

// PerItem returns a Meter for operations that each handle perOp items of
// the named unit ("item", "object", "event", "delta").
func PerItem(b *testing.B, perOp int, unit string) *Meter {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &Meter{b: b, perOp: perOp, unit: unit, mallocs: ms.Mallocs, bytes: ms.TotalAlloc}
}

// Pause stops the benchmark timer and the Meter's allocation count.
func (m *Meter) Pause() {
	m.b.StopTimer()
	runtime.ReadMemStats(&m.pauseAt)
}

// Resume restarts what Pause stopped.
func (m *Meter) Resume() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.excluded.mallocs += ms.Mallocs - m.pauseAt.Mallocs
	m.excluded.bytes += ms.TotalAlloc - m.pauseAt.TotalAlloc
	m.b.StartTimer()
}

// Report reports ns/unit, units/s, B/unit and allocs/unit for the loop
// that just ended.
func (m *Meter) Report() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	items := float64(m.b.N) * float64(m.perOp)
	if items == 0 {
		return
	}
	ns := float64(m.b.Elapsed().Nanoseconds())
	m.b.ReportMetric(ns/items, "ns/"+m.unit)
	if ns > 0 {
		m.b.ReportMetric(items/(ns/1e9), m.unit+"s/s")
	}
	m.b.ReportMetric(float64(ms.TotalAlloc-m.bytes-m.excluded.bytes)/items, "B/"+m.unit)
	m.b.ReportMetric(float64(ms.Mallocs-m.mallocs-m.excluded.mallocs)/items, "allocs/"+m.unit)
}
