package memrelease

import (
	"context"
	"testing"
	"time"
)

var sink []byte

// A burst of allocation followed by quiet releases once; quiet without a
// new burst does not release again.
func TestReleaseAfterBurstOnce(t *testing.T) {
	released := make(chan struct{}, 10)
	r := Releaser{Interval: 20 * time.Millisecond, Burst: 8 << 20, Quiet: 1 << 20, MinGap: time.Millisecond,
		release: func() { released <- struct{}{} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	time.Sleep(100 * time.Millisecond)
	select {
	case <-released:
		t.Fatal("released with no burst")
	default:
	}
	onceAfter(t, 16, released, "release")
}

// Release returns free pages: what the runtime holds falls after a large
// allocation is dropped.
func TestReleaseReturnsMemory(t *testing.T) {
	sink = make([]byte, 256<<20)
	for i := 0; i < len(sink); i += 4096 {
		sink[i] = 1
	}
	_, before := Stats()
	sink = nil
	Release()
	_, after := Stats()
	if before-after < 200<<20 {
		t.Fatalf("held %d MiB before, %d MiB after releasing a dropped 256 MiB slice", before>>20, after>>20)
	}
}

// Trim runs once when the process turns quiet after activity, without a
// burst, and not again while nothing is allocated.
func TestTrimAfterActivityOnce(t *testing.T) {
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
	time.Sleep(100 * time.Millisecond)
	onceAfter(t, 4, trims, "trim")
}

// onceAfter allocates mib MiB and expects exactly one signal on ch within
// 5 s, and none in the 300 ms after it.
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
	time.Sleep(300 * time.Millisecond)
	select {
	case <-ch:
		t.Fatalf("a second %s without more allocation", what)
	default:
	}
}
