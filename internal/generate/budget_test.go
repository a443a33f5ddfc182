package generate

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// The bytes held at once never exceed the capacity, a request above it
// runs alone, and every request is served.
func TestTextBudgetBounds(t *testing.T) {
	const capacity = 100
	b := newTextBudget(capacity)
	var held, most atomic.Int64
	var served atomic.Int32
	var wg sync.WaitGroup
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := int64(r.IntN(3 * capacity / 2))
		wg.Go(func() {
			got, err := b.acquire(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			if want := min(max(n, 1), capacity); got != want {
				t.Errorf("acquire(%d) took %d, want %d", n, got, want)
			}
			now := held.Add(got)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			held.Add(-got)
			b.release(got)
			served.Add(1)
		})
	}
	wg.Wait()
	if most.Load() > capacity {
		t.Errorf("%d bytes held at once, capacity %d", most.Load(), capacity)
	}
	if served.Load() != 200 {
		t.Errorf("%d of 200 requests served", served.Load())
	}
}

// A waiter whose context ends gives up with its error and takes nothing.
func TestTextBudgetCancel(t *testing.T) {
	b := newTextBudget(10)
	n, err := b.acquire(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.acquire(ctx, 1); err == nil {
		t.Fatal("a cancelled waiter acquired bytes that are held")
	}
	b.release(n)
	if got, err := b.acquire(context.Background(), 10); err != nil || got != 10 {
		t.Fatalf("after the release: %d, %v", got, err)
	}
}
