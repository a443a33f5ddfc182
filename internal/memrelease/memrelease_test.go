package memrelease

import (
	"context"
	"math"
	"runtime/debug"
	"testing"
	"testing/synctest"
	"time"
)

var sink []byte

// A burst of allocation followed by quiet releases once; quiet without a
// new burst does not release again.
//
// The releaser's ticks and the test's windows run on synctest's virtual
// clock: the sleeps below are windows of five or fifteen intervals that
// pass as soon as every goroutine of the bubble is blocked, not waits (the
// test took 0.4 s of wall time on the real clock).
func TestReleaseAfterBurstOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		released := make(chan struct{}, 10)
		r := Releaser{Interval: 20 * time.Millisecond, Burst: 8 << 20, Quiet: 1 << 20, MinGap: time.Millisecond,
			release: func() { released <- struct{}{} }}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go r.Run(ctx)
		time.Sleep(100 * time.Millisecond) // virtual: five ticks without a burst
		select {
		case <-released:
			t.Fatal("released with no burst")
		default:
		}
		onceAfter(t, 16, released, "release")
	})
}

// Release returns free pages: what the runtime holds falls after a large
// allocation is dropped. 64 MiB is far above the few MiB the rest of the
// test binary holds (it was 256 MiB: 1.3 s of CPU, but 8-14 s of wall
// time faulting the pages in on the shared machine).
func TestReleaseReturnsMemory(t *testing.T) {
	sink = make([]byte, 64<<20)
	for i := 0; i < len(sink); i += 4096 {
		sink[i] = 1
	}
	_, before := Stats()
	sink = nil
	Release()
	_, after := Stats()
	if before-after < 48<<20 {
		t.Fatalf("held %d MiB before, %d MiB after releasing a dropped 64 MiB slice", before>>20, after>>20)
	}
}

// Trim runs once when the process turns quiet after activity, without a
// burst, and not again while nothing is allocated.
// (Virtual time, as in TestReleaseAfterBurstOnce.)
func TestTrimAfterActivityOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		trims := make(chan struct{}, 10)
		r := Releaser{Interval: 20 * time.Millisecond, Burst: 1 << 40, Quiet: 1 << 20, MinGap: time.Millisecond,
			release: func() { t.Error("a Go release without a burst") },
			Trim: func(context.Context) error {
				trims <- struct{}{}
				return nil
			}}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go r.Run(ctx)
		time.Sleep(100 * time.Millisecond) // virtual: five ticks
		onceAfter(t, 4, trims, "trim")
	})
}

// onceAfter allocates mib MiB and expects exactly one signal on ch within
// 5 s, and none in the 300 ms after it (virtual time: the caller runs in a
// synctest bubble).
func onceAfter(t *testing.T, mib int, ch chan struct{}, what string) {
	t.Helper()
	for range mib {
		sink = make([]byte, 1<<20)
	}
	sink = nil
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s after %d MiB allocated", what, mib)
	}
	time.Sleep(300 * time.Millisecond) // virtual: fifteen ticks
	select {
	case <-ch:
		t.Fatalf("a second %s without more allocation", what)
	default:
	}
}

// Headroom is unbounded without a limit, the limit less what the runtime
// holds under one, and never negative past it.
func TestHeadroom(t *testing.T) {
	prev := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(prev)
	if got := Headroom(); got != math.MaxInt64 {
		t.Fatalf("no limit: headroom %d", got)
	}
	_, retained := Stats()
	debug.SetMemoryLimit(int64(retained) + 64<<20)
	if got := Headroom(); got <= 0 || got > 64<<20+16<<20 {
		t.Fatalf("limit 64 MiB above the %d bytes held: headroom %d", retained, got)
	}
	debug.SetMemoryLimit(1)
	if got := Headroom(); got != 0 {
		t.Fatalf("limit past: headroom %d", got)
	}
}
