//go:build unix

package local

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of the process so far (every
// thread, the garbage collector's included), so a rate can be given
// per CPU second as well as per wall second on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
