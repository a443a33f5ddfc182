//go:build unix

package testtier

import (
	"syscall"
	"testing"
	"time"
)

// CPU starts measuring the process's CPU time (user and system, every
// thread) for benchmark b; the returned func reports it per operation as
// cpu-ns/op. On the shared 2-core machine, with a load average of 10-30
// from other builds, wall time per operation varies tenfold while CPU
// time stays within ±20 %: benchmarks report both.
//
//	stop := testtier.CPU(b)
//	for b.Loop() { ... }
//	stop()
func CPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// ProcessCPU is the CPU time (user and system, every thread) the process
// has used so far. A test that bounds what a call costs compares two
// readings: unlike wall time, the difference does not stretch when other
// jobs load the machine (a PDF seed that takes 0.2 s of CPU took more
// than 5 s of wall time at load 30).
func ProcessCPU() time.Duration { return cpuTime() }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
