package integration

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the CPU time the process spends, user and system, on
// every goroutine and the runtime's own work (garbage collection
// included), as the operating system accounts it.
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock { return cpuClock{processCPU()} }

// report reports the CPU time since start per event, in cpu-ns/<unit>.
func (c cpuClock) report(b *testing.B, events int, unit string) {
	b.ReportMetric(float64((processCPU()-c.start).Nanoseconds())/float64(events), "cpu-ns/"+unit)
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
