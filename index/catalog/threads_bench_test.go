package catalog

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkThreads: list_threads over 100,000 entries of one owner in 50
// threads with five tag sets (the web page's threads list, which took
// 119 ms in SQL on an idle machine), and for a caller who reads 500 of
// them beside 99,500 of another owner's. 2026-12-04 at load 45, -cpu 1:
// 14.9 ms for the 99,500 readable, 0.15 ms for the 500 (36.9 and 21.4 KB,
// 132 and 130 allocations).
func BenchmarkThreads(b *testing.B) {
	c := New()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 100000
	for i := range n {
		owner := "alice"
		if i >= 500 {
			owner = "bob"
		}
		c.Put(Entry{ID: fmt.Sprintf("%032x", i), Owner: owner, ThreadID: fmt.Sprintf("t%d", i%50),
			Source: []string{"user", "agent"}[i%2], ContentType: "text", Tags: []string{fmt.Sprint("k", i%5)},
			CreatedAt: base.Add(time.Duration(i) * time.Second)})
	}
	for _, who := range []string{"bob", "alice"} {
		b.Run(who, func(b *testing.B) {
			for b.Loop() {
				if ts := c.Threads(Query{Principal: who, OmitKnowledge: true}); len(ts) != 50 {
					b.Fatalf("%d threads", len(ts))
				}
			}
		})
	}
}
