package testtier

import (
	"testing"
	"testing/synctest"
	"time"
)

// Until returns at the first poll that sees cond, polls with a growing
// gap, and gives up at the timeout (virtual time: synctest).
func TestUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		polls := 0
		if !Until(time.Second, func() bool { polls++; return polls == 5 }) {
			t.Fatal("Until gave up before cond held")
		}
		// Gaps of 1, 2, 4 and 8 ms before the fifth poll.
		if d := time.Since(start); d != 15*time.Millisecond {
			t.Fatalf("cond held at the fifth poll after %v, want 15ms", d)
		}
		start, polls = time.Now(), 0
		if Until(100*time.Millisecond, func() bool { polls++; return false }) {
			t.Fatal("Until reported a cond that never held")
		}
		if d := time.Since(start); d != 100*time.Millisecond {
			t.Fatalf("gave up after %v, want the timeout of 100ms", d)
		}
		// 1+2+4+8+16 ms, then every 20 ms up to 100 ms, and the last poll
		// at the deadline.
		if polls != 10 {
			t.Fatalf("%d polls in 100ms, want 10", polls)
		}
	})
}
