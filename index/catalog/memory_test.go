package catalog

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// scanned is the i-th entry as a scan of SQL returns it: every string a
// fresh allocation, even when its value repeats (threads, owner, tags).
func scanned(i int) Entry {
	fresh := func(s string) string { return strings.Clone(s) }
	return Entry{
		ID: fmt.Sprintf("0197a5b2%04x70008000%012x", i%0xffff, i), Owner: fresh("local"), // the server's form (internal/ids)
		ThreadID: fresh(fmt.Sprintf("bench-%d", i%8)), Source: fresh([]string{"agent", "user"}[i%2]), ContentType: fresh("text"),
		Tags: []string{fresh(fmt.Sprintf("topic-%d", i%20)), fresh("bench")}, CreatedAt: time.UnixMicro(int64(i)), Length: 40,
	}
}

// BenchmarkCatalogMemory reports the live heap a catalog of n scanned
// entries holds, per entry (B/entry), at a sweep of sizes; meta=true is
// the full-text index's catalog, which also keeps the bench's metadata
// ({status, priority, seq}) in its columns; distinct gives every entry
// its own thread and tag, so no two entries share a shape (shape.go's
// worst case: 1,067 B per entry before shapes, 819 after, most of it the
// per-value bitmaps and interned strings either way).
func BenchmarkCatalogMemory(b *testing.B) {
	for _, tc := range []struct {
		n              int
		meta, distinct bool
	}{{10_000, false, false}, {10_000, true, false}, {100_000, false, false}, {100_000, true, false}, {100_000, false, true}} {
		n := tc.n
		name := fmt.Sprintf("n=%d/meta=%t", n, tc.meta)
		if tc.distinct {
			name += "/distinct"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var perEntry float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				c := New()
				if tc.meta {
					c = NewMeta()
				}
				for i := range n {
					e := scanned(i)
					if tc.distinct {
						e.ThreadID, e.Tags[0] = fmt.Sprintf("thread-%d", i), fmt.Sprintf("file-%d.go", i)
					}
					if tc.meta {
						e.Metadata = benchMeta(i)
					}
					c.Put(e)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perEntry = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
				runtime.KeepAlive(c)
			}
			b.ReportMetric(perEntry, "B/entry")
		})
	}
}
