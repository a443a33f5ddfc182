package main

import (
	"context"
	"sync"
	"testing"
	"time"
)

// killWhileWriting injects SIGKILL into a server under write load: writers
// goroutines call store(ctx, writer, i) with i counting each writer's
// calls, until want writes are acknowledged (or 60 s pass), then p is
// killed and the ids acknowledged before the kill are returned. A write
// in flight at the kill may also have committed without its answer
// arriving; callers check that every returned id survived, not that
// nothing else did. The test fails when fewer than want were
// acknowledged.
func killWhileWriting(t *testing.T, p *proc, writers, want int, store func(ctx context.Context, w, i int) (string, error)) []string {
	t.Helper()
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(context.Background())
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				id, err := store(ctx, w, i)
				if err != nil || id == "" {
					return // the process is gone
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}(w)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= want || time.Now().After(deadline) {
			break
		}
	}
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < want {
		t.Fatalf("only %d writes acknowledged before the deadline, want %d", len(acked), want)
	}
	return append([]string(nil), acked...)
}
