package knowledge

import (
	"context"
	"sync"
	"testing"
)

// TestQueuePushAfterClose: the adopt loop or an upload may push while the
// service closes. A push racing close, or coming after it, is dropped
// (the document stays Pending in SQL for the next start) instead of
// sending on the closed wake-up channel, which panicked the process at
// shutdown right after a bulk upload. Run under -race it also checks the
// wake-up's send and close are ordered.
func TestQueuePushAfterClose(t *testing.T) {
	for range 200 {
		q := newQueue()
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					q.push(job{id: string(rune('a'+w)) + string(rune('a'+i))})
					q.setPaused(i%2 == 0)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.pop(context.Background())
				if !ok {
					return
				}
				q.done(j)
			}
		}()
		q.close()
		q.close() // a second close is harmless
		wg.Wait()
		q.push(job{id: "late"})
		if q.mine("late") {
			t.Fatal("a job pushed after close was queued")
		}
		if _, ok := q.pop(context.Background()); ok {
			t.Fatal("pop after close handed out a job")
		}
	}
}
