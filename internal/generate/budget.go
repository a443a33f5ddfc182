package generate

import (
	"context"
	"sync"
)

// Generation of a large text costs a multiple of the text in memory at
// once (its chunks and their vectors, the summarizer's sentence vectors),
// and a batch used to generate all its entries concurrently: sixteen texts
// of 10 MiB peaked at about 3 GB of RSS, eighteen times their payload.
// The Generator therefore admits texts by size: the texts it generates at
// once hold at most DefaultTextBudget bytes, a larger text running alone.
// Small texts are unaffected (a batch of 100 one-kilobyte entries holds
// 100 KB), and generation waits outside any transaction.

// DefaultTextBudget is how many bytes of text a Generator generates at
// once, over all concurrent calls.
const DefaultTextBudget = 16 << 20

// textBudget is a weighted semaphore in bytes of text. A request of more
// than the capacity takes all of it. Waiters are served in order: the one
// at the head holds mu until its weight is free, so a large text is not
// overtaken forever by small ones.
type textBudget struct {
	capacity int64
	head     chan struct{} // held by the waiter whose turn it is
	mu       sync.Mutex
	used     int64
	freed    chan struct{} // closed and replaced when bytes are released
}

func newTextBudget(capacity int64) *textBudget {
	return &textBudget{capacity: capacity, head: make(chan struct{}, 1), freed: make(chan struct{})}
}

// acquire waits until n bytes (at most the capacity) are free and takes
// them; it returns what release must give back.
func (b *textBudget) acquire(ctx context.Context, n int64) (int64, error) {
	n = min(max(n, 1), b.capacity)
	select {
	case b.head <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-b.head }()
	for {
		b.mu.Lock()
		if b.used+n <= b.capacity {
			b.used += n
			b.mu.Unlock()
			return n, nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// release gives back what acquire took.
func (b *textBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}
