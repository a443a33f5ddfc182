package testtier

import (
	"testing"
	"time"
)

// Until polls cond until it holds or timeout passes, and reports whether
// it held. It is for a test that waits on something it cannot be told
// about: another process (a child's listener, its RSS, a PostgreSQL
// session's LISTEN), the kernel (an inotify watch) or a background
// goroutine of the code under test that has no hook. A fixed sleep there
// is too long on an idle machine and too short on one loaded by other
// builds; the poll returns as soon as the condition is seen (first after
// 1 ms, the gap doubling to at most 20 ms) and waits as long as timeout
// allows when the machine is slow.
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	gap := time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(gap, left))
		<-t.C
		gap = min(2*gap, 20*time.Millisecond)
	}
}

// WaitFor fails tb when cond does not hold within timeout; what names the
// condition in the failure ("the listener's LISTEN").
func WaitFor(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Until(timeout, cond) {
		tb.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}
