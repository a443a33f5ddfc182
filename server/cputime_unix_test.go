//go:build unix

package server_test

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of the process so far (every
// thread: the background index appliers and the garbage collector too).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
